import { describe, expect, it } from 'vitest'
import { ClaudeGrepArgs } from '../../../src/claude-code/args.js'
import { COUNT } from '../../../src/claude-code/modes/count.js'
import { Config } from '../../../src/config.js'

const read = (stdout: string | Buffer, timedOut?: { afterMs: number; narrow: string }) => {
  const reader = COUNT.reader(ClaudeGrepArgs.parse({ pattern: 'x', output_mode: 'count' }), Config.parse({}), 'src')
  reader.push(Buffer.from(stdout))
  return reader.finish('/w', timedOut)
}

describe('the count mode', () => {
  it('runs rg --count, without the mtime helper', () => {
    expect(COUNT.rgFlags(ClaudeGrepArgs.parse({ pattern: 'x' }), Config.parse({}))).toEqual(['--count'])
    expect(COUNT.listsMtimes).toBe(false)
  })

  it('gives path:count per file under the path searched, and the totals', () => {
    const result = read('D\0b.ts\u00002\na.ts\u00001\n')
    expect({ ...result, entries: [...result.entries(0)] }).toEqual({
      entries: ['src/a.ts:1', '\nsrc/b.ts:2'],
      total: 2,
      matches: 3,
      heading: 'Found 3 matching lines in 2 files',
      tally: '3 matching lines in 2 files',
      unit: 'files',
      notes: [],
      found: true,
    })
  })

  it('says there are no matches, and notes a replaced name', () => {
    expect(read('D\0')).toMatchObject({ total: 0, heading: 'No matches found', tally: 'no matches', found: false })
    expect(read(Buffer.from([0x44, 0, 0x62, 0xff, 0, 0x31, 0x0a])).notes).toEqual([
      '(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    ])
  })

  it('reads what a stopped run printed, its last record dropped', () => {
    expect(read('D\0a.ts\u00001\nb.ts\u00002', { afterMs: 100, narrow: 'pattern' })).toMatchObject({ total: 1, matches: 1 })
  })
})
