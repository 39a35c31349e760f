// The profile switch: which tools and prompt sections each profile registers, and Claude Code's schemas.
import { describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isMtimeProbe } from '../fake-bash.js'

const load = (bash: FakeBash, config: Record<string, unknown> = {}) =>
  loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg', ...config } } })

describe('the claude-code profile', () => {
  it('registers Glob and Grep with their sections instead of glob and grep', async () => {
    const harness = await load(new FakeBash(), { profile: 'claude-code' })
    expect(harness.registry.list().map((t) => [t.name, t.isReadOnly, t.isConcurrencySafe])).toEqual([
      ['Glob', true, true],
      ['Grep', true, true],
    ])
    expect(harness.systemPrompt().map((s) => s.id)).toEqual(['tool-fs-search/Glob', 'tool-fs-search/Grep'])
  })

  it("gives Grep and Glob Claude Code's parameter names and types (docs/design.md#claude-codes-tool-surface)", async () => {
    const harness = await load(new FakeBash(), { profile: 'claude-code' })
    const types = (name: string) => {
      const schema = harness.registry.list().find((t) => t.name === name)!.inputSchema as {
        properties: Record<string, { type?: string; enum?: string[] }>
        required: string[]
      }
      return {
        required: schema.required,
        types: Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, value.type])),
      }
    }
    expect(types('Glob')).toEqual({ required: ['pattern'], types: { pattern: 'string', path: 'string' } })
    expect(types('Grep')).toEqual({
      required: ['pattern'],
      types: {
        pattern: 'string',
        path: 'string',
        glob: 'string',
        output_mode: 'string',
        '-B': 'number',
        '-A': 'number',
        '-C': 'number',
        context: 'number',
        '-n': 'boolean',
        '-i': 'boolean',
        type: 'string',
        head_limit: 'number',
        offset: 'number',
        multiline: 'boolean',
      },
    })
  })

  it('withholds both, by their names, when no rg or no mtime helper runs', async () => {
    const noRg = await load(new FakeBash(() => ({ exitCode: 1 })), { profile: 'claude-code' })
    expect(
      noRg
        .get('toolAvailability')
        ?.withheld()
        .map((w) => w.name),
    ).toEqual(['Glob', 'Grep'])
    const noHelper = await load(new FakeBash((command) => (isMtimeProbe(command) ? { exitCode: 1 } : {})), { profile: 'claude-code' })
    expect(noHelper.registry.list()).toEqual([])
    expect(
      noHelper
        .get('toolAvailability')
        ?.withheld()
        .map((w) => w.name),
    ).toEqual(['Glob', 'Grep'])
  })

  it('keeps the dsh profile by default and refuses an unknown one', async () => {
    expect((await load(new FakeBash())).registry.list().map((t) => t.name)).toEqual(['glob', 'grep'])
    await expect(load(new FakeBash(), { profile: 'claude' })).rejects.toThrow(/invalid config: profile/)
  })
})
