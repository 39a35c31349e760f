import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createDshHarness, DSH_PLUGINS } from '@dsh/cli'
import { tempDir } from './io.js'

const spill = tempDir('harness-spill')
afterAll(() => rmSync(spill, { recursive: true, force: true }))

describe('createDshHarness', () => {
  it('loads the executor, the store and the search tools in that order', async () => {
    const harness = await createDshHarness({ config: {} })
    expect(DSH_PLUGINS.map((p) => p.name)).toEqual(['bash-local', 'spill-local', 'tool-fs-search'])
    expect(harness.plugins).toEqual(['bash-local', 'spill-local', 'tool-fs-search'])
    expect(harness.registry.list().map((t) => t.name)).toEqual(['glob', 'grep'])
  })

  it('saves spilled text under spillDir, over the config file root', async () => {
    const harness = await createDshHarness({ config: { 'spill-local': { root: join(spill, 'ignored') } }, spillDir: spill })
    const saved = await harness.get('spillStore')!.saveText({ owner: 'o', source: { toolName: 'grep', callId: 'c', label: 'result' }, text: 'x', filename: 'grep-results.txt' })
    expect(saved.locator.startsWith(join(spill, 'o') + '/')).toBe(true)
  })

  it('passes warnings to the logger it is given', async () => {
    const warnings: string[] = []
    await createDshHarness({ config: { 'tool-fs-search': { rgPath: '/nonexistent/rg' } }, logger: { warn: (m) => warnings.push(m), info: () => undefined } })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^tool-fs-search: using .*\/nonexistent\/rg$/)
  })
})
