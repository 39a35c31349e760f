// Grep's output modes: each decided once, with its own flags, and its notes capped and inside the page budget.
import { describe, expect, it } from 'vitest'
import { Config } from '../../src/config.js'
import { ClaudeGrepArgs } from '../../src/claude-code/args.js'
import { grepModeOf } from '../../src/claude-code/modes.js'
import { rgLines } from '../fake-bash.js'
import { agent, fakeHarness } from '../fake-harness.js'

const config = Config.parse({})
const args = (extra: Record<string, unknown>) => ClaudeGrepArgs.parse({ pattern: 'p', ...extra })

describe('grepModeOf', () => {
  it.each<[string | undefined, string[], boolean]>([
    [undefined, ['--files-with-matches'], true],
    ['files_with_matches', ['--files-with-matches'], true],
    ['count', ['--count'], false],
    [
      'content',
      ['--line-number', '--no-heading', `--max-columns=${config.grepMaxLineBytes}`, '--max-columns-preview', '--no-context-separator'],
      false,
    ],
  ])('gives %s its rg flags, and the mtime helper only to the file list', (mode, flags, listsMtimes) => {
    const grepMode = grepModeOf(args(mode === undefined ? {} : { output_mode: mode }).output_mode)
    expect(grepMode.rgFlags(args({ output_mode: mode }), config)).toEqual(flags)
    expect(grepMode.listsMtimes).toBe(listsMtimes)
  })

  it.each<[Record<string, unknown>, string[]]>([
    [{ '-C': 2 }, ['--before-context=2', '--after-context=2']],
    [{ context: 3, '-A': 0 }, ['--before-context=3']],
    [{ '-B': 1 }, ['--before-context=1']],
    [{ '-A': 4, '-C': 1 }, ['--before-context=1', '--after-context=4']],
  ])('gives content the context %j asks for, each one word', (context, flags) => {
    const call = args({ output_mode: 'content', ...context })
    expect(grepModeOf('content').rgFlags(call, config).slice(5)).toEqual(flags)
  })
})

describe('notes that name paths', () => {
  const stopped = (name: string) => `${name}: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n`
  const bins = Array.from({ length: 7 }, (_, i) => `./bin${7 - i}.dat`)
  // rg's content output: forty matching lines of one file, then seven files whose search stopped at binary content.
  const stdout =
    rgLines(...Array.from({ length: 40 }, (_, i): [string, number, string] => ['./text.txt', i + 1, `needle line ${i + 1}`])) +
    bins.map((name) => `${name}\u00001:needle\n${stopped(name)}`).join('')
  const grep = async (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const { harness } = await fakeHarness(() => ({ exitCode: 0, stdout }), { profile: 'claude-code', ...config })
    return harness.registry.execute('Grep', { pattern: 'needle', output_mode: 'content', ...extra }, { agent, callId: 'call-1' })
  }

  it('names five files rg stopped reading, sorted, then counts the rest', async () => {
    expect((await grep({}, { head_limit: 0 })).content).toContain(
      '(rg stopped at binary content in bin1.dat, bin2.dat, bin3.dat, bin4.dat, bin5.dat, and 2 more, so matches after it are missing.)',
    )
  })

  it('counts those notes inside the page byte budget', async () => {
    const result = await grep({ inlineMaxBytes: 600 }, { head_limit: 0 })
    const parts = result.content.split('\n\n')
    const note = parts.find((part) => part.startsWith('(rg stopped at binary content'))
    const paging = parts.findIndex((part) => part.startsWith('(Showing lines'))
    expect(note).toBeDefined()
    expect(paging).toBeGreaterThan(1)
    // The heading and the paging footer are outside the budget; the rows and the naming footer share it.
    const rows = parts.slice(1, paging).join('\n\n')
    expect(Buffer.byteLength(rows) + Buffer.byteLength(note!)).toBeLessThanOrEqual(600)
    expect(Buffer.byteLength(rows)).toBeGreaterThan(600 - Buffer.byteLength(note!) - 40)
  })
})
