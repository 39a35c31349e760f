// Sorted runs on spill-local's real scratch file against the whole listing in memory: names past a
// block, merges that meet the UTF-16 order, paths read out of order, and the glob tool's edges.
import { describe, expect, it } from 'vitest'
import { loadHarness, type SpillScratch } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { openScratch } from '../../../../spill-local/src/scratch.js'
import { nameDisplay } from '../../../src/engine/display-path.js'
import { GlobListingParser } from '../../../src/engine/glob/listing.js'
import { sortNewestFirst } from '../../../src/engine/glob/order.js'
import { cutPathBlocks, pathBlocks, showPaths, type PathsCut } from '../../../src/engine/glob/paths.js'
import { GlobRuns, mergedPathBlocks } from '../../../src/engine/glob/runs.js'
import { FakeBash, isProbe, MemorySpill } from '../../fake-bash.js'
import { agent, RG } from '../../fake-harness.js'
import { scratchDirs } from '../../real-harness.js'

const scratchDir = scratchDirs()

/** `mtime TAB name NUL` for each pair. */
function records(pairs: [string, string | Buffer][]): Buffer {
  return Buffer.concat(pairs.map(([mtime, name]) => Buffer.concat([Buffer.from(`${mtime}\t`), Buffer.from(name), Buffer.from('\0')])))
}

/** The listing in runs of at most `capacity / 2` bytes on a scratch file, fed in chunks of `chunk` bytes. */
function streamed(output: Buffer, capacity: number, chunk: number, scratch: SpillScratch | undefined, keep = Infinity): GlobRuns {
  const runs = new GlobRuns(scratch, keep)
  const parser = new GlobListingParser(capacity, runs)
  for (let at = 0; at < output.length; at += chunk) parser.push(output.subarray(at, at + chunk))
  const rest = parser.finish()
  runs.add(rest)
  return runs
}

/** The listing whole, in memory: what the runs must give. */
function whole(output: Buffer, display: ReturnType<typeof nameDisplay>): { text: string; paths: string[] } {
  const parser = new GlobListingParser(1 << 26)
  parser.push(output)
  const listing = parser.finish()
  const order = sortNewestFirst(listing)
  const shown = showPaths(listing, order, display)
  const text = Buffer.concat([...pathBlocks(listing, order, display)].map((block) => Buffer.from(block))).toString()
  return { text, paths: Array.from({ length: shown.count }, (_, index) => shown.at(index)) }
}

function mergedText(runs: GlobRuns, display: ReturnType<typeof nameDisplay>): string {
  return Buffer.concat([...mergedPathBlocks(runs, display)].map((block) => Buffer.from(block))).toString()
}

describe('GlobRuns', () => {
  // Names past a run's 64 KiB block and past a 256 KiB spill block, plain and not, among short ones.
  const output = records([
    ['5', 'a.ts'],
    ['5', 'p'.repeat(70_000)],
    ['4', `n\u001b${'q'.repeat(70_000)}`],
    ['5', 'h'.repeat(300_000)],
    ['3', `e\u001b${'x'.repeat(300_000)}`],
    ['5', 'z.ts'],
    ['2', './b/c.ts'],
    // Oldest, so last: nothing is left for a last block.
    ['1', 'y'.repeat(300_000)],
  ])

  it.each([
    ['a plain directory', '/w', '/w/sub'],
    ['a directory shown quoted', '/w', '/w/q\nuoted'],
  ])('writes names of any length as the whole listing does, under %s', (_label, workdir, dir) => {
    const display = nameDisplay(workdir, dir)
    const scratch = openScratch(scratchDir('runs'))
    try {
      const runs = streamed(output, 1000, 4096, scratch)
      expect(runs.runs).toBeGreaterThan(2)
      expect(runs.count).toBe(8)
      const want = whole(output, display)
      expect(mergedText(runs, display)).toBe(want.text)
      const shown = runs.shown(display)
      expect(Array.from({ length: shown.count }, (_, index) => shown.at(index))).toEqual(want.paths)
    } finally {
      scratch.close()
    }
  })

  it('grows its arrays for half the cap when runs take the rest, and merges as the whole listing sorts', () => {
    // 30,000 records of about 20 bytes: past the 4,096 files the arrays first hold before the first
    // run, so they grow (for what half of 256 KiB holds), then again as the run fills.
    const listing = records(
      Array.from({ length: 30_000 }, (_, i): [string, string] => [`${(i * 7919) % 5000}.${i % 7}`, `d${i % 40}/f${i}.ts`]),
    )
    const display = nameDisplay('/w', '/w')
    const scratch = openScratch(scratchDir('runs'))
    try {
      const runs = streamed(listing, 1 << 18, 65_536, scratch)
      expect(runs.runs).toBeGreaterThan(2)
      expect(runs.count).toBe(30_000)
      expect(mergedText(runs, display)).toBe(whole(listing, display).text)
    } finally {
      scratch.close()
    }
  })

  it('merges names of one time in UTF-16 order, across runs', () => {
    const names = ['\ue000.txt', '😀.txt', '\uffee.txt', '𝄞.txt', 'é.txt', 'a', 'ab', '\ue000', '😀']
    const listing = records(names.map((name) => ['7', name]))
    const display = nameDisplay('/w', '/w')
    const runs = streamed(listing, 2, 1, undefined)
    expect(runs.runs).toBeGreaterThanOrEqual(names.length)
    expect(mergedText(runs, display)).toBe(whole(listing, display).text)
  })

  it('reads paths in any order', () => {
    const listing = records([
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'c'],
      ['4', 'd'],
    ])
    const display = nameDisplay('/w', '/w')
    const shown = streamed(listing, 20, 3, undefined).shown(display)
    expect([shown.at(2), shown.at(0), shown.at(1), shown.at(3), shown.at(3)]).toEqual(['b', 'd', 'c', 'a', 'a'])
  })

  it('keeps only the head of each run without a scratch file, and counts every file', () => {
    const listing = records(Array.from({ length: 50 }, (_, i): [string, string] => [String(i % 13), `f${i}`]))
    const display = nameDisplay('/w', '/w')
    const runs = streamed(listing, 40, 5, undefined, 3)
    expect(runs.complete).toBe(false)
    expect(runs.count).toBe(50)
    const shown = runs.shown(display)
    expect([0, 1, 2].map((index) => shown.at(index))).toEqual(whole(listing, display).paths.slice(0, 3))
  })
})

describe('glob past the raw output cap', () => {
  async function glob(stdout: Buffer, scripted: { exitCode?: number; stderr?: string }, call: Parameters<typeof agentCall>[0]) {
    const spill = new MemorySpill()
    const bash = new FakeBash((command) => (isProbe(command) ? {} : { stdout, ...scripted }))
    bash.stdoutChunkBytes = 3
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash, spillStore: spill },
      config: { 'tool-fs-search': { rgPath: RG, globMaxResults: 2, rawOutputMaxBytes: 1 } },
    })
    return { result: await harness.registry.execute('glob', { pattern: '**/*' }, agentCall(call)), spill }
  }
  function agentCall(withAgent: boolean): { callId: string; agent?: typeof agent } {
    return withAgent ? { callId: 'c', agent } : { callId: 'c' }
  }

  it('keeps what rg found when it exits 2 after every record went to runs', async () => {
    const { result, spill } = await glob(
      records([
        ['1', 'a.ts'],
        ['2', 'b.ts'],
        ['3', 'c.ts'],
      ]),
      { exitCode: 2, stderr: 'rg: ./locked: Permission denied (os error 13)\n' },
      true,
    )
    expect(result.content).toBe(
      'c.ts\nb.ts\n\n(Showing 2 of 3 paths, newest first. Full sorted result stored at: /spill/sess-1/0001-glob-results.txt. Use read with offset/limit, or grep this path to search within it.)\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
    expect(spill.saved.map((saved) => saved.text)).toEqual(['c.ts\nb.ts\na.ts\n'])
    expect(spill.scratches.map((scratch) => scratch.closed)).toEqual([true])
  })

  it('answers a call without a session from the runs it kept in memory', async () => {
    const { result, spill } = await glob(
      records([
        ['1', 'a.ts'],
        ['2', 'b.ts'],
        ['3', 'c.ts'],
      ]),
      {},
      false,
    )
    expect(result.content).toMatch(
      /^c\.ts\nb\.ts\n\n\(Showing 2 of 3 paths, newest first\. The complete result could not be saved \(the call has no session/,
    )
    expect(result.value).toMatchObject({ paths: ['c.ts', 'b.ts'], pathsCut: true, total: 3 })
    expect(spill.scratches).toEqual([])
  })
})

describe('cutPathBlocks', () => {
  const blocks = [Buffer.from('a\nb\n'), Buffer.from('cc\nd\n')]
  const cut = (maxBytes: number): { text: string; plan: PathsCut } => {
    const plan: PathsCut = { maxBytes }
    return { text: Buffer.concat([...cutPathBlocks(blocks, plan)]).toString(), plan }
  }

  it('stops at the last whole path that fits, at a block boundary or within a block', () => {
    expect(cut(100)).toEqual({ text: 'a\nb\ncc\nd\n', plan: { maxBytes: 100 } })
    expect(cut(4)).toEqual({ text: 'a\nb\n', plan: { maxBytes: 4, cut: { saved: 2 } } })
    expect(cut(6)).toEqual({ text: 'a\nb\n', plan: { maxBytes: 6, cut: { saved: 2 } } })
    expect(cut(7)).toEqual({ text: 'a\nb\ncc\n', plan: { maxBytes: 7, cut: { saved: 3 } } })
    expect(cut(1)).toEqual({ text: '', plan: { maxBytes: 1, cut: { saved: 0 } } })
  })
})

describe('GlobListingParser.streamed', () => {
  it('is false for a parser that keeps its listing whole', () => {
    const parser = new GlobListingParser(10)
    parser.push(records([['1', 'a.ts']]))
    expect(parser.streamed).toBe(false)
  })
})
