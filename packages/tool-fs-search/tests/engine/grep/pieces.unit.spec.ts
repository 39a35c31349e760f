import { describe, expect, it } from 'vitest'
import { GrepPieces } from '../../../src/engine/grep/pieces.js'
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
