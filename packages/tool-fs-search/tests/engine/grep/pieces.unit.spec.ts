import { describe, expect, it } from 'vitest'
import type { SpillScratch } from '@dsh/core'
import { retainEveryMatch } from '../../../src/dsh/grep/retain.js'
import { showMatches } from '../../../src/engine/grep/matches.js'
import { RgOutputParser } from '../../../src/engine/grep/parse.js'
import { GrepPieces, windowBytes, type LoadedRecords } from '../../../src/engine/grep/pieces.js'
import { formatGroups } from '../../../src/engine/grep/rows.js'
import { parseOutput } from './parsed.js'

describe('GrepPieces', () => {
  it('takes a flush of more files than a call can spread as arguments (one piece a file)', () => {
    // 200,000 files of one match each: V8 refuses a spread of about 120,000 arguments.
    const files = 200_000
    const lines: string[] = []
    for (let i = 0; i < files; i++) lines.push(`f${i.toString().padStart(6, '0')}.txt\u00001:hit\n`)
    const parsed = parseOutput(`D\0${lines.join('')}`, { chunkBytes: 1 << 24 })
    expect(parsed.records.runs).toHaveLength(files)
    const pieces = new GrepPieces(undefined, { maxMatches: 3, maxPerFile: 3 }, (path) => path)
    pieces.add(parsed.bytes, parsed.records)
    const result = pieces.finish()
    expect({ total: result.total, files: result.files }).toEqual({ total: files, files })
    expect(result.page.records.runs.map((run) => run.path)).toEqual(['f000000.txt', 'f000001.txt', 'f000002.txt'])
  })
})

describe('GrepPieces on a scratch file', () => {
  /** A scratch file in memory that counts its reads and reads into buffers of its own, as a store may. */
  function countingScratch(): SpillScratch & { reads: number; largest: number } {
    let bytes = Buffer.alloc(0)
    return {
      reads: 0,
      largest: 0,
      get size() {
        return bytes.length
      },
      append(more) {
        bytes = Buffer.concat([bytes, more])
        return bytes.length - more.length
      },
      read(offset, length) {
        this.reads += 1
        this.largest = Math.max(this.largest, length)
        return Buffer.from(bytes.subarray(offset, offset + length))
      },
      close() {},
    }
  }

  /** rg's records for `files` (path, matches), in the order given. */
  const output = (files: [string, number][]): string =>
    `D\0${files.map(([path, count]) => Array.from({ length: count }, (_, i) => `${path}\u0000${i + 1}:hit ${path} ${i} ${'x'.repeat(60)}\n`).join('')).join('')}`

  it('reads the rest back a block at a time in display order, a file of many pieces and a piece past a block too', () => {
    // Two flushes, files in reverse order; `big.txt` (8,000 matches) is larger than a block, and
    // `both.txt` has a piece in each flush.
    const first: [string, number][] = [
      ...Array.from({ length: 4_000 }, (_, i): [string, number] => [`f${String(7_999 - i).padStart(4, '0')}.txt`, 1]),
      ['big.txt', 8_000],
      ['both.txt', 2],
    ]
    const second: [string, number][] = [
      ...Array.from({ length: 4_000 }, (_, i): [string, number] => [`f${String(3_999 - i).padStart(4, '0')}.txt`, 1]),
      ['both.txt', 3],
    ]
    const scratch = countingScratch()
    const pieces = new GrepPieces(scratch, { maxMatches: 1, maxPerFile: 1 }, (path) => path)
    for (const files of [first, second]) {
      const parsed = parseOutput(output(files), { chunkBytes: 1 << 24 })
      pieces.add(parsed.bytes, parsed.records)
    }
    const result = pieces.finish()
    scratch.reads = 0
    // Each file is formatted before the next is asked for: its bytes may lie in a window read over.
    const text = (loaded: LoadedRecords): string => {
      const matches = showMatches(loaded, (path) => path)
      return formatGroups(matches, retainEveryMatch(matches).groups)
    }
    const shown = [text(result.page)]
    for (const loaded of result.rest!()) shown.push(text(loaded))
    const whole = showMatches(parseOutput(output([...first, ...second]), { chunkBytes: 1 << 24 }), (path) => path)
    expect(shown.join('\n\n')).toBe(formatGroups(whole, retainEveryMatch(whole).groups))
    // ~1.4 MB of records: a few reads a flush, where a read a piece took 8,000.
    expect(scratch.reads).toBeLessThan(20)
  })

  it('gives each flush a block of window while 16 MiB holds them all, less for more, and none past 1,024', () => {
    expect([0, 1, 64].map(windowBytes)).toEqual([262_144, 262_144, 262_144])
    expect(windowBytes(65)).toBe(Math.floor((16 << 20) / 65))
    expect(windowBytes(1_024)).toBe(16_384)
    // A result of 1,025 flushes (over 10 GB at the default cap) reads a piece at a time: memory stays 16 MiB.
    expect(windowBytes(1_025)).toBe(0)
  })

  it('reads each piece alone, in order, when there is no room for windows', () => {
    const scratch = countingScratch()
    // A raw cap so small every record is a flush of its own: 1,500 flushes, more than windows are kept for.
    const parser = new RgOutputParser(2_000, 40, {
      pieces: () => new GrepPieces(scratch, { maxMatches: 1, maxPerFile: 1 }, (path) => path),
    })
    const files: [string, number][] = Array.from({ length: 1_500 }, (_, i): [string, number] => [
      `f${String(1_499 - i).padStart(4, '0')}.txt`,
      1,
    ])
    // A flush follows a push that fills the buffer: a record a push, a flush a record.
    for (const record of output(files).split(/(?<=\n)/)) parser.push(Buffer.from(record))
    const { streamed } = parser.finish()
    const shown = [...streamed!.rest!()].map((loaded) => loaded.records.runs[0]!.path)
    expect(shown).toEqual(
      files
        .map(([path]) => path)
        .sort()
        .slice(1),
    )
    // Each read is one piece's records (~90 bytes), not a window of the file.
    expect({ reads: scratch.reads, largest: scratch.largest }).toEqual({ reads: 1_499, largest: expect.any(Number) })
    expect(scratch.largest).toBeLessThan(200)
  })
})
