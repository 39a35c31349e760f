// Grep's count mode past the raw output cap: generated count outputs read in small batches, through
// sorted runs on a scratch file or in memory, give the page, totals and spill entries of the whole read.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ClaudeGrepArgs } from '../../src/claude-code/args.js'
import { CountParser } from '../../src/claude-code/counts.js'
import { CountRuns } from '../../src/claude-code/count-runs.js'
import { COUNT } from '../../src/claude-code/modes/count.js'
import type { ModeStream } from '../../src/claude-code/modes/mode.js'
import { Config } from '../../src/config.js'
import { displayFrom } from '../../src/engine/display-path.js'
import { MemorySpill } from '../fake-bash.js'

const args = ClaudeGrepArgs.parse({ pattern: 'x', output_mode: 'count' })

// Names that sort near each other, decode alike (0xff and 0xfe both show as U+FFFD), hold U+FFFD
// itself, a newline, a control character, or non-ASCII text that sorts apart from its bytes.
const NAMES: (string | number[])[] = [
  'a.ts',
  'b.ts',
  'a/b.ts',
  'a b.ts',
  'é.ts',
  '\u{1F600}.ts',
  '\uFFFD.ts',
  'new\nline.ts',
  'esc\u001b.ts',
  [0x78, 0xff, 0x2e, 0x74],
  [0x78, 0xfe, 0x2e, 0x74],
  [0xef, 0xbf, 0xbd, 0x2e, 0x74, 0x73],
  [0xff, 0x2e, 0x74, 0x73],
]
const name = (which: string | number[]): Buffer => (typeof which === 'string' ? Buffer.from(which) : Buffer.from(which))

const output = fc
  .array(
    fc.record({
      name: fc.integer({ min: 0, max: NAMES.length - 1 }),
      dir: fc.integer({ min: 0, max: 4 }),
      count: fc.integer({ min: 1, max: 999 }),
    }),
    {
      maxLength: 60,
    },
  )
  .map((records) => {
    // rg prints each file once; two raw names may still show alike.
    const seen = new Set<string>()
    const parts: Buffer[] = [Buffer.from('D\0')]
    for (const record of records) {
      const raw = Buffer.concat([Buffer.from(`d${record.dir}/`), name(NAMES[record.name]!)])
      if (seen.has(raw.toString('hex'))) continue
      seen.add(raw.toString('hex'))
      parts.push(raw, Buffer.from(`\0${record.count}\n`))
    }
    return Buffer.concat(parts)
  })

/** The reader with a stream whose runs hold a scratch file (or none), fed in chunks of `chunk` bytes. */
function readStreamed(
  bytes: Buffer,
  rawCap: number,
  chunk: number,
  page: { offset: number; count: number },
  scratch: boolean,
  timedOut = false,
) {
  const store = new MemorySpill()
  const stream: ModeStream = {
    pieces: () => {
      throw new Error('not a content read')
    },
    runs: () => {
      throw new Error('not a file list')
    },
    counts: (searched, keep) => {
      expect(searched).toBe('directory')
      return { runs: new CountRuns(scratch ? store.openScratch() : undefined, keep), show: displayFrom('/w', '/w/src') }
    },
    page,
  }
  const reader = COUNT.reader(args, Config.parse({ rawOutputMaxBytes: rawCap }), 'src', stream)
  for (let at = 0; at < bytes.length; at += chunk) reader.push(bytes.subarray(at, at + chunk))
  return reader.finish('/w', timedOut ? { afterMs: 5, narrow: 'pattern' } : undefined)
}

function readWhole(bytes: Buffer, timedOut = false) {
  const reader = COUNT.reader(args, Config.parse({}), 'src')
  reader.push(bytes)
  return reader.finish('/w', timedOut ? { afterMs: 5, narrow: 'pattern' } : undefined)
}

/** What a result shows: its numbers and words, the page's entries and the spill's. */
function shown(result: ReturnType<typeof readWhole>, page: { offset: number; count: number }, spill: boolean) {
  const entries = [...result.entries(page.offset)].slice(0, page.count)
  return {
    total: result.total,
    matches: result.matches,
    heading: result.heading,
    tally: result.tally,
    notes: result.notes,
    found: result.found,
    entries,
    ...(spill ? { spill: [...(result.spillEntries?.() ?? result.entries(0))] } : {}),
  }
}

describe('the count mode past the raw output cap', () => {
  it('gives what the whole read gives, with a scratch file or without one', () => {
    fc.assert(
      fc.property(
        output,
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.boolean(),
        (bytes, rawCap, chunk, offset, count, scratch) => {
          const page = { offset, count }
          const want = shown(readWhole(bytes), page, scratch)
          expect(shown(readStreamed(bytes, rawCap, chunk, page, scratch), page, scratch)).toEqual(want)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('reads a stopped run as the whole read does, its last record dropped', () => {
    fc.assert(
      fc.property(output, fc.integer({ min: 0, max: 8 }), (bytes, cut) => {
        const stopped = bytes.subarray(0, Math.max(2, bytes.length - cut))
        const page = { offset: 0, count: 10 }
        expect(shown(readStreamed(stopped, 40, 7, page, true, true), page, true)).toEqual(shown(readWhole(stopped, true), page, true))
      }),
    )
  })

  it('streams only past half the raw cap: a smaller output is read whole', () => {
    const page = { offset: 0, count: 10 }
    const result = readStreamed(Buffer.from('D\0a.ts\u00001\n'), 1000, 4, page, true)
    expect(result.spillEntries).toBeUndefined()
    expect([...result.entries(0)]).toEqual(['src/a.ts:1'])
  })

  it('without a scratch file, keeps the page and the totals but cannot give the spill', () => {
    const bytes = Buffer.from(`D\0${Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}\u0000${i + 1}\n`).join('')}`)
    const page = { offset: 30, count: 5 }
    const result = readStreamed(bytes, 30, 9, page, false)
    expect({ total: result.total, matches: result.matches }).toEqual({ total: 40, matches: 820 })
    expect([...result.entries(30)]).toEqual(['src/f30:31', '\nsrc/f31:32', '\nsrc/f32:33', '\nsrc/f33:34', '\nsrc/f34:35'])
    expect(() => result.spillEntries!()).toThrow('the result is larger than memory and the spill store keeps no scratch file')
  })

  it('fails a record that does not parse, once the output has ended, and reads nothing after it', () => {
    const reader = new CountParser(8, () => undefined)
    reader.push(Buffer.from('a\u00001\nb\u0000x\n'))
    reader.push(Buffer.from('c\u00002\n'))
    expect(() => reader.finish()).toThrow("Grep could not parse rg's count output near")
    const page = { offset: 0, count: 5 }
    expect(() => readStreamed(Buffer.from('D\0a\u00001\nb\u0000x\nc\u00002\n'), 8, 4, page, true)).toThrow(/could not parse/)
  })

  it('merges runs of any size, a path longer than a block included', () => {
    const long = `${'x'.repeat(100_000)}.ts`
    const first = Array.from({ length: 6000 }, (_, i) => ({ path: `a/${String(i).padStart(5, '0')}.ts`, count: i + 1, replaced: false }))
    const second = [
      { path: 'a/00001.ts', count: 10, replaced: false },
      { path: long, count: 2, replaced: false },
    ]
    const runs = new CountRuns(new MemorySpill().openScratch(), 1)
    runs.add(first)
    runs.add(second)
    const merged = [...runs.merged()]
    expect(merged.length).toBe(6001)
    expect(merged[1]).toEqual({ path: 'a/00001.ts', count: 12, replaced: false })
    expect(merged.at(-1)).toEqual({ path: long, count: 2, replaced: false })
    expect(runs.matches).toBe(18_003_012)
    const empty = new CountRuns(undefined, 5)
    empty.add([])
    expect({ merged: [...empty.merged()], total: empty.total, lossy: empty.lossy }).toEqual({ merged: [], total: 0, lossy: 0 })
  })

  it('without a scratch file keeps only the first entries of each run, and counts them all', () => {
    // Which runs a real search cuts depends on how its output arrives: this one is cut by hand.
    const runs = new CountRuns(undefined, 2)
    runs.add(['a.ts', 'b.ts', 'c.ts'].map((path, i) => ({ path, count: i + 1, replaced: false })))
    runs.add([{ path: 'd.ts', count: 4, replaced: false }])
    expect({ merged: [...runs.merged()].map((entry) => entry.path), total: runs.total, matches: runs.matches }).toEqual({
      merged: ['a.ts', 'b.ts', 'd.ts'],
      total: 4,
      matches: 10,
    })
  })
})
