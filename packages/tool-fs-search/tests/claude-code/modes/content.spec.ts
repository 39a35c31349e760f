import { describe, expect, it } from 'vitest'
import { ClaudeGrepArgs } from '../../../src/claude-code/args.js'
import { CONTENT } from '../../../src/claude-code/modes/content.js'
import { Config } from '../../../src/config.js'

const config = Config.parse({})
const read = (
  stdout: string | Buffer,
  args: Record<string, unknown> = {},
  target = 'src',
  timedOut?: { afterMs: number; narrow: string },
) => {
  const reader = CONTENT.reader(ClaudeGrepArgs.parse({ pattern: 'x', output_mode: 'content', ...args }), config, target)
  reader.push(Buffer.from(stdout))
  return reader.finish('/w', timedOut)
}
const stopped = (name: string) => `${name}: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n`

describe('the content mode', () => {
  it("runs rg's line output with previews, and the context asked for", () => {
    const flags = CONTENT.rgFlags(ClaudeGrepArgs.parse({ pattern: 'x', '-B': 2 }), config)
    expect(flags).toContain(`--max-columns=${config.grepMaxLineBytes}`)
    expect(flags.slice(-2)).toEqual(['--no-context-separator', '--before-context=2'])
    expect(CONTENT.listsMtimes).toBe(false)
  })

  it('gives matching lines grouped by file, counting context lines apart', () => {
    const result = read('D\0a.ts\u00001-one\na.ts\u00002:two\n', { '-B': 1 })
    expect({ ...result, entries: [...result.entries(0)], content: undefined }).toEqual({
      entries: ['src/a.ts\nLine 1- one', '\nLine 2: two'],
      total: 2,
      matches: 1,
      heading: 'Found 1 matching line in 1 file, with 1 context line',
      tally: '1 matching line in 1 file',
      unit: 'lines',
      notes: [],
      found: true,
      content: undefined,
    })
    expect(result.content?.base).toBe('/w/src')
  })

  it('names a file searched by name whose match is binary, and says no lines show', () => {
    const result = read('F\0./b.dat: binary file matches (found "\\0" byte around offset 5)\n', {}, 'b.dat')
    expect(result).toMatchObject({ total: 0, heading: 'No matching lines to show', tally: 'no matches', found: true })
    expect(result.notes).toEqual(['(Binary file matched, lines not shown: b.dat.)'])
  })

  it('names at most five files rg stopped reading, and notes escapes and replaced bytes', () => {
    const names = ['f', 'e', 'd', 'c', 'b', 'a']
    const out = `D\0${names.map((name) => `${name}\u00001:x\u001b\n${stopped(name)}`).join('')}`
    expect(read(out).notes).toEqual([
      '(rg stopped at binary content in src/a, src/b, src/c, src/d, src/e, and 1 more, so matches after it are missing.)',
      '(6 lines contain control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)',
    ])
    expect(read(Buffer.concat([Buffer.from('D\0a\u00001:x'), Buffer.from([0xff, 0x0a])])).notes).toEqual([
      '(1 line or path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    ])
  })

  it('says no matches when there are none, and reads what a stopped run printed', () => {
    expect(read('D\0')).toMatchObject({ total: 0, heading: 'No matches found', found: false })
    expect(read('D\0a\u00001:x\na\u00002:y', {}, 'src', { afterMs: 100, narrow: 'pattern' })).toMatchObject({ total: 1 })
  })
})
