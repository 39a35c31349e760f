// grep past rawOutputMaxBytes (docs/design.md#results-bigger-than-memory): a page, the true total and
// the whole result on disk, with real rg and spill-local; a store without scratch files, through fakes.
import { readdirSync, readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { rgLines, MemorySpill } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, scratchDirs, spillLocator, writeTree } from '../../real-harness.js'

// 40 files of 30 matching lines: ~60 KB of rg output, far past the caps below.
const FILES = 40
const LINES = 30
const TOTAL = FILES * LINES

function writeMatches(root: string): void {
  const files: Record<string, string> = {}
  for (let f = 0; f < FILES; f += 1) {
    files[`d${f % 4}/f${String(f).padStart(2, '0')}.txt`] = Array.from(
      { length: LINES },
      (_, l) => `needle ${f} ${l} ${'x'.repeat(20)}`,
    ).join('\n')
  }
  writeTree(root, files)
}

describe('grep past rawOutputMaxBytes, over real rg and spill-local', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('tree')
  beforeAll(() => writeMatches(tree))

  it('answers with the page, the true total and the complete spill, as a search under the cap does', async () => {
    const whole = await loadRealHarness({ spillRoot: scratchDir('whole') })
    const spillRoot = scratchDir('streamed')
    const streamed = await loadRealHarness({ spillRoot, search: { rawOutputMaxBytes: 2_000 } })
    const want = await callTool(whole, 'grep', { pattern: 'needle' }, tree)
    const got = await callTool(streamed, 'grep', { pattern: 'needle' }, tree)
    expect(got.isError).toBe(false)
    expect(got.content).toMatch(new RegExp(`^Found 250 of ${TOTAL} matches`))
    const [wantSpill, gotSpill] = [spillLocator(want.content)!, spillLocator(got.content)!]
    expect(got.content.replace(gotSpill, '')).toBe(want.content.replace(wantSpill, ''))
    expect(readFileSync(gotSpill, 'utf8')).toBe(readFileSync(wantSpill, 'utf8'))
    expect(got.value).toMatchObject({ total: TOTAL, truncated: true, matchesCut: true })
    // The scratch file was unlinked as it was opened: nothing but the owner's directory is left.
    expect(readdirSync(spillRoot)).toEqual(['sess-1'])
  })

  it('without a session to own a spill, answers with the page, the true total and why nothing was saved', async () => {
    const harness = await loadRealHarness({ spillRoot: scratchDir('none'), search: { rawOutputMaxBytes: 2_000 } })
    const result = await harness.registry.execute('grep', { pattern: 'needle' }, { agent: { session: { header: { id: '', cwd: tree } } } })
    expect(result.content).toMatch(new RegExp(`^Found 250 of ${TOTAL} matches`))
    expect(result.content).toContain('The complete result could not be saved (the call has no session to own the file)')
  })

  it('keeps at most spillMaxBytes on disk, and the page and the spill say how much of the total that is', async () => {
    const harness = await loadRealHarness({ spillRoot: scratchDir('cut'), search: { rawOutputMaxBytes: 2_000, spillMaxBytes: 300_000 } })
    // 2,000 files of 30 matches: ~2.6 MB of spill, cut at 300 KB.
    const big = scratchDir('big')
    writeTree(big, Object.fromEntries(Array.from({ length: 2_000 }, (_, f) => [`f${f}.txt`, `${'needle y\n'.repeat(30)}`])))
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, big)
    const saved = Number(/The first (\d+) of 60000 matches stored at: /.exec(result.content)?.[1])
    expect(saved).toBeGreaterThan(0)
    expect(result.content).toContain(
      'The rest is not saved: the complete result passes spillMaxBytes (300000 bytes); narrow the search to see it.',
    )
    const spill = readFileSync(spillLocator(result.content)!, 'utf8')
    expect(Buffer.byteLength(spill)).toBeLessThanOrEqual(300_000)
    expect(spill).toMatch(/^Found 60000 matches\n\n/)
    // Rows fill blocks across files, so the cut may fall inside one: every row kept is counted.
    expect(spill.match(/^Line \d+: /gm)).toHaveLength(saved)
    expect(spill).toContain(
      `(This file holds the first ${saved} of 60000 matches: the complete result passes spillMaxBytes, 300000 bytes.)`,
    )
  })
})

/** Records of `files` files of `lines` matches each, as rg prints them, in reverse path order. */
function manyRecords(files: number, lines: number): string {
  const records: [string, number, string][] = []
  for (let f = files - 1; f >= 0; f -= 1)
    for (let l = 1; l <= lines; l += 1) records.push([`./f${String(f).padStart(3, '0')}.ts`, l, `hit ${f}`])
  return rgLines(...records)
}

describe('grep past rawOutputMaxBytes, with fakes', () => {
  it('says the result cannot be saved when the store gives no scratch file and records left memory', async () => {
    const store = new MemorySpill()
    Object.defineProperty(store, 'openScratch', { value: undefined })
    const { grep } = await fakeHarness(() => ({ stdout: manyRecords(30, 20) }), { rawOutputMaxBytes: 200, grepMaxMatches: 5 }, store)
    const result = await grep({ pattern: 'hit' })
    expect(result.content).toMatch(/^Found 5 of 600 matches\n\nf000\.ts\nLine 1: hit 0\n/)
    expect(result.content).toContain(
      'The complete result could not be saved (saving failed: the result is larger than memory and the spill store keeps no scratch file)',
    )
    expect(store.saved).toEqual([])
  })

  it('spills a streamed result whole from memory when every file fit on the page', async () => {
    const store = new MemorySpill()
    Object.defineProperty(store, 'openScratch', { value: undefined })
    const { grep } = await fakeHarness(
      () => ({ stdout: manyRecords(3, 4) }),
      { rawOutputMaxBytes: 20, grepMaxMatches: 100, inlineMaxBytes: 60 },
      store,
    )
    const result = await grep({ pattern: 'hit' })
    expect(result.content).toMatch(/^Found \d+ of 12 matches/)
    expect(store.saved[0]!.text).toBe(
      'Found 12 matches\n\nf000.ts\nLine 1: hit 0\nLine 2: hit 0\nLine 3: hit 0\nLine 4: hit 0\n\nf001.ts\nLine 1: hit 1\nLine 2: hit 1\nLine 3: hit 1\nLine 4: hit 1\n\nf002.ts\nLine 1: hit 2\nLine 2: hit 2\nLine 3: hit 2\nLine 4: hit 2\n',
    )
  })

  it('closes its scratch file when the output does not parse', async () => {
    const store = new MemorySpill()
    const { grep } = await fakeHarness(() => ({ stdout: `${manyRecords(30, 20)}broken\0x:y\n` }), { rawOutputMaxBytes: 200 }, store)
    const result = await grep({ pattern: 'hit' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(store.scratches.length).toBe(1)
    expect(store.scratches[0]!.closed).toBe(true)
    // Every record went to the scratch file before the parse failed.
    expect(store.scratches[0]!.bytes().length).toBeGreaterThan(0)
  })

  it('answers a streamed search stopped at its time limit with what it found, the whole count and the files', async () => {
    const store = new MemorySpill()
    const { grep } = await fakeHarness(
      () => ({ stdout: manyRecords(30, 20), stop: 'timeout', exitCode: null, signal: 'SIGTERM' }),
      { rawOutputMaxBytes: 200 },
      store,
    )
    const result = await grep({ pattern: 'hit' })
    expect(result.content).toMatch(/^\(Stopped after 30 s, the search's time limit: partial result/m)
    expect(result.content).toContain('600 matches in 30 files')
    expect(store.scratches[0]!.closed).toBe(true)
  })
})
