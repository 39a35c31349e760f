import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDshHarness, DSH_PLUGINS } from '@dsh/cli'
import type { LocalSearchIndex } from '@dsh/index-local'
import { scratchDir } from './io.js'

const spill = scratchDir('harness-spill')

describe('createDshHarness', () => {
  it('loads the providers before the tools that use them', async () => {
    const harness = await createDshHarness({ config: {} })
    const order = ['bash-local', 'spill-local', 'fs-local', 'access', 'index-local', 'tool-fs-search', 'tool-fs', 'mcp']
    expect(DSH_PLUGINS.map((p) => p.name)).toEqual(order)
    expect(harness.plugins).toEqual(order)
    expect(harness.registry.list().map((t) => t.name)).toEqual(['glob', 'grep', 'read'])
  })

  it('saves spilled text under spillDir, over the config file root', async () => {
    const harness = await createDshHarness({ config: { 'spill-local': { root: join(spill, 'ignored') } }, spillDir: spill })
    const saved = await harness
      .get('spillStore')!
      .saveText({ owner: 'o', source: { toolName: 'grep', callId: 'c', label: 'result' }, text: 'x', filename: 'grep-results.txt' })
    expect(saved.locator.startsWith(join(spill, 'o') + '/')).toBe(true)
  })

  it('keeps the index watcher in a warm process, unless the config file says otherwise', async () => {
    const watch = async (options: Parameters<typeof createDshHarness>[0]) =>
      ((await createDshHarness(options)).get('searchIndex') as LocalSearchIndex).settings.watch
    expect(await watch({ config: {} })).toBe(false)
    expect(await watch({ config: {}, warm: true })).toBe(true)
    expect(await watch({ config: { 'index-local': { broadFraction: 0.5 } }, warm: true })).toBe(true)
    expect(await watch({ config: { 'index-local': { watch: false } }, warm: true })).toBe(false)
    // A value that is not an object is refused by the plugin's config, as without warm.
    await expect(createDshHarness({ config: { 'index-local': 5 }, warm: true })).rejects.toThrow(/index-local/)
  })

  it('passes warnings to the logger it is given', async () => {
    const warnings: string[] = []
    await createDshHarness({
      config: { 'tool-fs-search': { rgPath: '/nonexistent/rg' } },
      logger: { warn: (m) => warnings.push(m), info: () => undefined },
    })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^tool-fs-search: using .*\/nonexistent\/rg$/)
  })
})

describe('createDshHarness roots', () => {
  const cwd = scratchDir('harness-roots')
  const other = scratchDir('harness-other')
  const allowed = async (options: Parameters<typeof createDshHarness>[0], path: string) =>
    (await createDshHarness(options))
      .get('access')!
      .check({ path, cwd, purpose: 'read' })
      .then(
        () => true,
        () => false,
      )

  it('adds --root directories to the default root, the session cwd', async () => {
    expect(await allowed({ config: {} }, other)).toBe(false)
    expect(await allowed({ config: {}, roots: [other] }, other)).toBe(true)
    expect(await allowed({ config: {}, roots: [other] }, cwd)).toBe(true)
  })

  it('adds --root directories to the configured roots, keeping the other access settings', async () => {
    const config = { access: { roots: [other], deny: ['*.pem'] } }
    expect(await allowed({ config }, cwd)).toBe(false)
    expect(await allowed({ config, roots: [cwd] }, cwd)).toBe(true)
    expect(await allowed({ config, roots: [cwd] }, join(cwd, 'k.pem'))).toBe(false)
  })
})
