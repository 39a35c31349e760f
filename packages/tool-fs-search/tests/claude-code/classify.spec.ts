// Grep's exit statuses through the registry over a fake executor: every way a run can end.
import { describe, expect, it } from 'vitest'
import { statRecords } from '../fake-bash.js'
import { agent, fakeHarness } from '../fake-harness.js'
import type { Scripted } from '../fake-bash.js'

async function grepWith(scripted: Scripted | ((command: string) => Scripted), args: Record<string, unknown> = {}) {
  const { harness, bash } = await fakeHarness(typeof scripted === 'function' ? scripted : () => scripted, { profile: 'claude-code' })
  const result = await harness.registry.execute('Grep', { pattern: 'x', ...args }, { agent, callId: 'call-1' })
  return { result, bash }
}

describe('Grep exit statuses', () => {
  it('fails when the mtime helper cannot run', async () => {
    const { result } = await grepWith({ exitCode: 125, stdout: 'D\0' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(result.content).toContain('could not run its modification-time helper')
  })

  it('lists what it could, naming the files whose time could not be read', async () => {
    const { result } = await grepWith({
      exitCode: 7,
      stdout: `D\0${statRecords(['1700000000.5', './a'])}`,
      stderr: '/usr/bin/find: ./b: No such file\n',
    })
    expect(result.content).toBe(
      'Found 1 file, newest modified first\n\na\n\n(Listing incomplete: the modification time of some files could not be read, so they are not shown: ./b: No such file.)',
    )
    expect(result.value).toMatchObject({ incomplete: ['./b: No such file'] })
  })

  it('fails on a signal or an unknown status, quoting rg', async () => {
    expect((await grepWith({ exitCode: null, signal: 'SIGKILL', stderr: 'killed' })).result.content).toBe(
      'Grep failed: rg exited with status signal SIGKILL. killed',
    )
    expect((await grepWith({ exitCode: 9 })).result.content).toBe('Grep failed: rg exited with status 9. (rg printed no error)')
  })

  it('fails for a root rg could not read, and keeps results with unreadable paths under it', async () => {
    const unreadable = await grepWith(
      { exitCode: 2, stdout: 'D\0', stderr: 'rg: .: Permission denied (os error 13)\n' },
      { output_mode: 'count' },
    )
    expect(unreadable.result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(unreadable.result.content).toContain('Grep cannot search .: rg: .: Permission denied')
    const partial = await grepWith(
      { exitCode: 2, stdout: 'D\0./a\u00003\n', stderr: 'rg: ./locked: Permission denied (os error 13)\n' },
      { output_mode: 'count' },
    )
    expect(partial.result.content).toBe(
      'Found 3 matching lines in 1 file\n\na:3\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
  })

  it('names a glob that cannot filter a file, and reads an error on the directory a glob narrowed to as a failure', async () => {
    expect((await grepWith({ exitCode: 6 }, { path: 'a.ts', glob: '*.ts' })).result.content).toContain(
      'Grep glob "*.ts" filters the files of a directory search, but path a.ts is a file',
    )
    const narrowed = await grepWith(
      { exitCode: 2, stdout: 'D\0', stderr: 'rg: ./src: Permission denied (os error 13)\n' },
      { glob: 'src/**' },
    )
    expect(narrowed.result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
  })

  it('fails on output that does not parse, in every mode', async () => {
    expect((await grepWith({ stdout: 'Q' })).result.content).toContain('Grep could not parse its script output near "Q"')
    expect((await grepWith({ stdout: 'D\0./a\u0000x\n' }, { output_mode: 'count' })).result.content).toContain(
      'Grep could not parse rg\'s count output near "./a\\u0000x\\n"',
    )
    expect((await grepWith({ stdout: 'D\0./a' }, { output_mode: 'count' })).result.content).toContain("could not parse rg's count output")
  })

  it('reads the script head split across chunks', async () => {
    const { harness, bash } = await fakeHarness(() => ({ stdout: `D\0${statRecords(['1700000000', './a'])}` }), { profile: 'claude-code' })
    bash.stdoutChunkBytes = 1
    const result = await harness.registry.execute('Grep', { pattern: 'x' }, { agent })
    expect(result.content).toBe('Found 1 file, newest modified first\n\na')
  })

  it('adds the counts of two names that display the same, and sorts by path', async () => {
    const stdout = Buffer.concat([Buffer.from('D\0./b\u00001\n./a\xff\u00002\n./a\xfe\u00003\n./c\xff\u00001\n', 'latin1')])
    const { result } = await grepWith({ stdout }, { output_mode: 'count' })
    expect(result.content).toBe(
      'Found 7 matching lines in 3 files\n\na\ufffd:5\nb:1\nc\ufffd:1\n\n(2 paths contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    )
  })

  it('presents its call as a search card', async () => {
    const { harness } = await fakeHarness(() => ({}), { profile: 'claude-code' })
    const { registry } = harness
    expect(registry.get('Grep')!.presentCall!({ pattern: 'x', path: 'src' })).toEqual({
      card: 'generic',
      kind: 'search',
      title: 'Grep x',
      detail: 'src',
    })
    expect(registry.get('Grep')!.presentCall!({ pattern: 'x' })).toEqual({ card: 'generic', kind: 'search', title: 'Grep x' })
    expect(registry.get('Glob')!.presentCall!({ pattern: '*.ts' })).toEqual({ card: 'generic', kind: 'search', title: 'Glob *.ts' })
  })
})

describe('Grep without a spill store', () => {
  it('says the complete result could not be saved', async () => {
    const { result } = await grepWith({ stdout: `D\0${statRecords(['1700000002', './a'], ['1700000001', './b'])}` }, { head_limit: 1 })
    expect(result.content).toBe(
      'Found 2 files, newest modified first\n\na\n\n(Showing files 1-1 of 2; to see more, call again with offset: 1. The complete result could not be saved (no spill store is configured); narrow the search to see the rest.)',
    )
  })
})
