import { describe, expect, it } from 'vitest'
import { loadHarness, type PluginContext } from '@dsh/core'
import { z } from 'zod'
import { createToolAvailability } from '../src/availability.js'

describe('createToolAvailability', () => {
  it('lists withheld tools in order, each once with its first reason', () => {
    const availability = createToolAvailability()
    availability.withhold({ name: 'grep', reason: 'no rg' })
    availability.withhold({ name: 'glob', reason: 'no rg' })
    availability.withhold({ name: 'grep', reason: 'later' })
    expect(availability.withheld()).toEqual([
      { name: 'grep', reason: 'no rg' },
      { name: 'glob', reason: 'no rg' },
    ])
  })
})

describe('the toolAvailability service', () => {
  it('is provided by the loader: what a plugin withholds, the host reads', async () => {
    const withholder = {
      name: 'withholder',
      inject: ['toolAvailability'] as const,
      Config: z.strictObject({}),
      apply: (ctx: PluginContext<'toolAvailability'>) => ctx.toolAvailability.withhold({ name: 'grep', reason: 'ripgrep is missing' }),
    }
    const harness = await loadHarness({ plugins: [withholder] })
    expect(harness.registry.list()).toEqual([])
    expect(harness.get('toolAvailability')?.withheld()).toEqual([{ name: 'grep', reason: 'ripgrep is missing' }])
  })
})
