// glob's spill past spillMaxBytes (docs/design.md#results-bigger-than-memory), with real rg and
// spill-local: in memory and streamed through sorted runs, the page says how much of the total was
// saved, and the file holds exactly those newest paths. Deterministic, beside the property test.
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { GlobValue } from '../../../src/values.js'
import { callTool, loadRealHarness, scratchDirs, spillLocator, writeTree } from '../../real-harness.js'

const FILES = 200

describe('glob past spillMaxBytes, over real rg and spill-local', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('tree')
  beforeAll(() => writeTree(tree, Object.fromEntries(Array.from({ length: FILES }, (_, f) => [`d${f % 5}/file-${f}.txt`, 'x']))))

  it.each([
    ['in memory', {}],
    ['streamed through sorted runs', { rawOutputMaxBytes: 400 }],
  ])('keeps at most spillMaxBytes on disk, %s, and the page says how much of the total that is', async (label, caps) => {
    const harness = await loadRealHarness({
      spillRoot: scratchDir(`cut-${label.split(' ')[0]}`),
      search: { ...caps, globMaxResults: 10, spillMaxBytes: 600 },
    })
    const result = await callTool(harness, 'glob', { pattern: '**/*' }, tree)
    expect(result.isError).toBe(false)
    const saved = Number(new RegExp(`The first (\\d+) of ${FILES} paths stored at: `).exec(result.content)?.[1])
    expect(saved).toBeGreaterThan(0)
    expect(saved).toBeLessThan(FILES)
    expect(result.content).toContain(
      'The rest is not saved: the complete result passes spillMaxBytes (600 bytes); narrow the search to see it.',
    )
    const spill = readFileSync(spillLocator(result.content)!, 'utf8')
    expect(Buffer.byteLength(spill)).toBeLessThanOrEqual(600)
    expect(spill.split('\n').filter((line) => /^d\d\/file-\d+\.txt$/.test(line))).toHaveLength(saved)
    expect(result.value).toMatchObject({ total: FILES, truncated: true })
    // Read after the call returned, its scratch file closed: every path, or, streamed, the newest as
    // many as a page may show.
    const { paths, pathsCut } = result.value as GlobValue
    expect(paths.slice(0, saved)).toEqual(spill.split('\n').slice(0, Math.min(saved, paths.length)))
    expect([paths.length, pathsCut]).toEqual(label === 'in memory' ? [FILES, undefined] : [10, true])
  })

  it('keeps every path of a streamed listing no larger than a page may show, and says nothing is cut', async () => {
    const harness = await loadRealHarness({ spillRoot: scratchDir('whole'), search: { rawOutputMaxBytes: 400, globMaxResults: FILES } })
    const result = await callTool(harness, 'glob', { pattern: '**/*' }, tree)
    const { paths, pathsCut, total } = result.value as GlobValue
    expect([paths.length, pathsCut, total]).toEqual([FILES, undefined, FILES])
    expect(new Set(paths).size).toBe(FILES)
  })
})
