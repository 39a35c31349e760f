import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { retainGrepMatches } from '../../../src/dsh/grep/retain.js'
import { rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, pageOf, readSpill, scratchDirs, spillLocator, writeCapsTree } from '../../real-harness.js'
import { shownOf } from '../../engine/grep/parsed.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')

const hits = (...records: [string, number][]) =>
  shownOf(rgLines(...records.map(([path, line]): [string, number, string] => [path, line, 'hit'])))

describe('retainGrepMatches', () => {
  const budget = { maxMatches: 3, maxBytes: 10_000, maxPerFile: 2 }

  it('names a capped file even when the page filled before any of its matches', () => {
    const matches = hits(['a', 1], ['a', 2], ['b', 1], ['b', 2], ['z', 1], ['z', 2], ['z', 3])
    expect(retainGrepMatches(matches, budget)).toMatchObject({
      kept: 3,
      total: 7,
      truncated: true,
      groups: [
        { file: 0, count: 2 },
        { file: 1, count: 1 },
      ],
      cutFiles: [{ path: 'z', shown: 0, total: 3 }],
    })
  })

  it('does not cap per file when only one file matched', () => {
    expect(retainGrepMatches(hits(['a', 1], ['a', 2], ['a', 3], ['a', 4]), budget)).toMatchObject({ kept: 3, cutFiles: [] })
  })

  it('keeps one match though it alone passes the byte budget, so a page is never empty', () => {
    expect(retainGrepMatches(hits(['a', 1], ['b', 1]), { ...budget, maxBytes: 5 })).toMatchObject({
      kept: 1,
      groups: [{ file: 0, count: 1 }],
    })
  })

  it('charges every match a header while cutting, so a result that would just fit can be cut', () => {
    // Three rows of `Line N: hit` (12 bytes with the newline) under one 3-byte header: 39 bytes whole, 45 charged.
    expect(retainGrepMatches(hits(['a', 1], ['a', 2], ['a', 3]), { ...budget, maxMatches: 10, maxBytes: 40 })).toMatchObject({
      kept: 2,
      truncated: true,
    })
  })
})

describe('retention through the registry', () => {
  it('caps matches per file when the page is full, naming the files cut', async () => {
    const records: [string, number, string][] = [
      ...Array.from({ length: 6 }, (_, i) => ['gen.js', i + 1, 'hit'] as [string, number, string]),
      ['src.ts', 1, 'hit'],
    ]
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(...records) }), { grepMaxMatches: 4, grepMaxMatchesPerFile: 2 })
    expect((await grep({ pattern: 'hit' })).content).toMatch(
      /^Found 3 of 7 matches\n\ngen\.js\nLine 1: hit\nLine 2: hit\n\nsrc\.ts\nLine 1: hit\n\n\(Per-file cap: these files show only some of their matches: gen\.js \(2 of 6\)\.\)/,
    )
  })

  it('keeps the page within the inline byte budget', async () => {
    const records = Array.from({ length: 50 }, (_, i) => [`file${i}.ts`, 1, 'x'.repeat(80)] as [string, number, string])
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(...records) }), { inlineMaxBytes: 1000 })
    const { content } = await grep({ pattern: 'x' })
    const page = content.split('\n\n(')[0]!
    const header = /^Found (\d+) of 50 matches\n\n/.exec(page)
    expect(header).not.toBeNull()
    expect(Buffer.byteLength(page) - header![0].length).toBeLessThanOrEqual(1000)
    expect(Number(header![1])).toBeGreaterThan(5)
  })
})

describe('bounded pages and the spill (docs/design.md#bytes-not-only-counts)', () => {
  const tree = scratchDir('caps')
  beforeAll(() => writeCapsTree(tree))

  it('grep shows the cap and names a spill file holding every match', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { grepMaxMatches: 3 } })
    const result = await callTool(capped, 'grep', { pattern: 'needle' }, tree)
    const locator = spillLocator(result.content)!
    expect(pageOf(result.content)).toBe(
      'Found 3 of 10 matches\n\nf0.txt\nLine 1: needle 0\n\nf1.txt\nLine 1: needle 1\n\nf2.txt\nLine 1: needle 2',
    )
    expect(locator.startsWith(join(spillRoot, 'sess-1'))).toBe(true)
    const full = readSpill(locator)
    expect(full.startsWith('Found 10 matches\n\n')).toBe(true)
    for (let i = 0; i < 10; i += 1) expect(full).toContain(`f${i}.txt\nLine 1: needle ${i}`)
  })

  it('the per-file cap names the file whose matches were cut', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { grepMaxMatches: 10, grepMaxMatchesPerFile: 2 } })
    const result = await callTool(capped, 'grep', { pattern: 'hit', path: 'big' }, tree)
    expect(pageOf(result.content)).toBe(
      'Found 5 of 33 matches\n\nbig/many.log\nLine 1: hit 0\nLine 2: hit 1\n\nbig/one.log\nLine 1: hit\n\nbig/two.log\nLine 1: hit\nLine 2: hit',
    )
    expect(result.content).toContain('(Per-file cap: these files show only some of their matches: big/many.log (2 of 30).)')
    expect(
      readSpill(spillLocator(result.content)!)
        .split('\n')
        .filter((l) => l.startsWith('Line ')).length,
    ).toBe(33)
  })
})
