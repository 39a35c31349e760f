import { describe, expect, it } from 'vitest'
import { ClaudeGrepArgs } from '../../../src/claude-code/args.js'
import { FILES_WITH_MATCHES } from '../../../src/claude-code/modes/files-with-matches.js'
import { Config } from '../../../src/config.js'
import { statRecords } from '../../fake-bash.js'

const read = (stdout: string | Buffer, timedOut?: { afterMs: number; narrow: string }) => {
  const reader = FILES_WITH_MATCHES.reader(ClaudeGrepArgs.parse({ pattern: 'x' }), Config.parse({}), 'src')
  reader.push(Buffer.from(stdout))
  return reader.finish('/w', timedOut)
}

describe('the files_with_matches mode', () => {
  it('runs rg --files-with-matches through the mtime helper', () => {
    expect(FILES_WITH_MATCHES.rgFlags(ClaudeGrepArgs.parse({ pattern: 'x' }), Config.parse({}))).toEqual(['--files-with-matches'])
    expect(FILES_WITH_MATCHES.listsMtimes).toBe(true)
  })

  it('lists the files newest modified first, ties by path', () => {
    const result = read(`D\0${statRecords(['1700000001', './old.ts'], ['1700000009', './new.ts'], ['1700000001', './b.ts'])}`)
    expect({ ...result, entries: [...result.entries(0)] }).toEqual({
      entries: ['src/new.ts', '\nsrc/b.ts', '\nsrc/old.ts'],
      total: 3,
      matches: 3,
      heading: 'Found 3 files, newest modified first',
      tally: '3 files',
      unit: 'files',
      notes: [],
      found: true,
    })
  })

  it('says no files were found, and what a stopped run listed', () => {
    expect(read('D\0')).toMatchObject({ total: 0, heading: 'No files found', tally: 'no files', found: false })
    expect(read(`D\0${statRecords(['1', './a'])}2\t./b`, { afterMs: 100, narrow: 'pattern' })).toMatchObject({
      total: 1,
      heading: 'Found 1 file, newest modified first',
    })
  })
})
