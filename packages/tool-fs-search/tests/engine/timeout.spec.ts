// A timeout returns what was found (docs/design.md#a-timeout-returns-what-was-found): the note's
// pieces, then every tool through the registry over a fake executor that stops a search mid-output.
import { describe, expect, it } from 'vitest'
import { HarnessError, type BashRequest, type BashRunResult, type BashSpec, type ToolExecContext } from '@dsh/core'
import { Config } from '../../src/config.js'
import { incompleteEntries, seconds, timedOutGaps, timeoutNote } from '../../src/engine/timeout.js'
import { executeGrep } from '../../src/dsh/grep/tool.js'
import { FakeBash, MemorySpill, rgLines, statRecords, type Scripted } from '../fake-bash.js'
import { agent, fakeHarness, RG } from '../fake-harness.js'

// What an executor reports for a search it stopped at its time limit: rg killed, no exit status.
const TIMED_OUT = { stop: 'timeout', exitCode: null, signal: 'SIGTERM' } as const
const NOTE_END = 'so far; rg had not finished, so more may exist. Narrow the pattern, path or include, or raise timeoutMs.)'
const GAP_30S = 'stopped after 30 s (timeoutMs) before rg finished: what it had not yet printed is missing'

describe('the timeout note', () => {
  it.each([
    [30_000, '30 s'],
    [1500, '1.5 s'],
    [150, '0.15 s'],
    [1234, '1.23 s'],
  ])('quotes %i ms as %s', (ms, text) => {
    expect(seconds(ms)).toBe(text)
  })

  it('says how long the search ran, what it found by then, and how to get the rest', () => {
    expect(timeoutNote({ afterMs: 30_000, narrow: 'pattern or path' }, '4 files')).toBe(
      "(Stopped after 30 s, the search's time limit: partial result, 4 files so far; rg had not finished, so more may exist. Narrow the pattern or path, or raise timeoutMs.)",
    )
  })

  it("puts the timeout first among a value's incomplete entries, and nothing for a run that finished", () => {
    expect(incompleteEntries({ afterMs: 30_000, narrow: 'x' }, ['./locked: Permission denied'])).toEqual([
      GAP_30S,
      './locked: Permission denied',
    ])
    expect(incompleteEntries(undefined, ['./locked: Permission denied'])).toEqual(['./locked: Permission denied'])
  })

  it('reads the paths rg named on stderr before it was stopped, and nothing else there', () => {
    const stderr = 'rg: ./locked: Permission denied (os error 13)\nfind: ./gone: No such file\n'
    const run: BashRunResult = {
      ...TIMED_OUT,
      durationMs: 1,
      stdout: { text: '', truncated: false, totalBytes: 0 },
      stderr: { text: stderr, truncated: false, totalBytes: stderr.length },
    }
    expect(timedOutGaps(run)).toEqual({ paths: ['./locked: Permission denied (os error 13)'] })
  })
})

describe('grep stopped by its timeout', () => {
  // Three whole records, then one cut off mid-line, as rg's pipe held them when it was killed.
  const partial = `${rgLines(['b.ts', 4, 'needle b'], ['a.ts', 2, 'needle a'], ['a.ts', 9, 'needle again'])}c.ts\u00007:needle c, half`

  it('returns the matches rg printed, the record it was cut off in dropped, marked partial', async () => {
    const { grep } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: partial }))
    const result = await grep({ pattern: 'needle' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(
      `Found 3 matches\n\na.ts\nLine 2: needle a\nLine 9: needle again\n\nb.ts\nLine 4: needle b\n\n(Stopped after 30 s, the search's time limit: partial result, 3 matches in 2 files ${NOTE_END}`,
    )
    expect(result.value).toMatchObject({ total: 3, truncated: false, incomplete: [GAP_30S] })
    expect((result.value as { matches: unknown[] }).matches).toHaveLength(3)
    expect(result.meta).toMatchObject({ shape: 'matches', total: 3, truncated: false, incomplete: true })
  })

  it('says so on a search card, which a complete search does not', async () => {
    const { harness, grep } = await fakeHarness((command) =>
      command.includes('complete') ? { stdout: rgLines(['a.ts', 1, 'complete']) } : { ...TIMED_OUT, stdout: partial },
    )
    expect(harness.registry.present('grep', { pattern: 'x' }, await grep({ pattern: 'x' }))).toMatchObject({ incomplete: true })
    expect(harness.registry.present('grep', { pattern: 'complete' }, await grep({ pattern: 'complete' }))).toMatchObject({
      incomplete: false,
    })
  })

  it('names what rg could not read before it was stopped', async () => {
    const { grep } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: partial, stderr: 'rg: ./locked: Permission denied (os error 13)\n' }))
    const result = await grep({ pattern: 'needle' })
    expect(result.content).toMatch(
      /partial result, 3 matches in 2 files so far;[^\n]*\n\n\(Search incomplete: rg could not read 1 path, so results from them are missing: \.\/locked: Permission denied \(os error 13\)\.\)$/,
    )
    expect(result.value).toMatchObject({ incomplete: [GAP_30S, './locked: Permission denied (os error 13)'] })
  })

  it('is a partial result with no match, not a failure, when rg was stopped before it printed anything', async () => {
    for (const stdout of ['', 'D']) {
      const { grep } = await fakeHarness(() => ({ ...TIMED_OUT, stdout }))
      const result = await grep({ pattern: 'needle' })
      expect(result).toMatchObject({ isError: false, meta: { total: 0, incomplete: true } })
      expect(result.content).toBe(
        `No matches found so far\n\n(Stopped after 30 s, the search's time limit: partial result, no matches ${NOTE_END}`,
      )
    }
  })

  it('still fails on output that did not parse before the cut', async () => {
    const { grep } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: 'D\0a.ts\0x:needle\nb.ts\u00001:needle\n' }))
    expect(await grep({ pattern: 'needle' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    const { grep: garbled } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: 'XY' }))
    expect(await garbled({ pattern: 'needle' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
  })

  it('pages and spills a capped partial result as usual, the spill saying it is partial', async () => {
    const store = new MemorySpill()
    const { grep } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: partial }), { grepMaxMatches: 1 }, store)
    const result = await grep({ pattern: 'needle' })
    expect(result.content).toMatch(
      /^Found 1 of 3 matches\n\na\.ts\nLine 2: needle a\n\n\(Stopped after 30 s[^\n]*3 matches in 2 files so far/,
    )
    expect(result.content).toContain('(Full grep result stored at: /spill/sess-1/0001-grep-results.txt.')
    expect(result).toMatchObject({ spilledTo: '/spill/sess-1/0001-grep-results.txt', value: { truncated: true } })
    expect(store.saved[0]?.text).toBe(
      `Found 3 matches\n\na.ts\nLine 2: needle a\nLine 9: needle again\n\nb.ts\nLine 4: needle b\n\n(Stopped after 30 s, the search's time limit: partial result, 3 matches in 2 files ${NOTE_END}\n`,
    )
  })

  it('fetches no window for a cut line after a timeout: the call has spent its time', async () => {
    const long = `needle ${'x'.repeat(100)}`
    const { bash, grep } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: rgLines(['a.ts', 1, long]) }), { grepMaxLineBytes: 20 })
    const result = await grep({ pattern: 'needle' })
    expect(result.content).toMatch(/^Found 1 match\n\na\.ts\nLine 1 \(cut\): needle x{13}\n\n\(Stopped after 30 s/)
    expect(bash.searches()).toHaveLength(1)
  })

  it('quotes the limit the executor applied when it lowered the configured one', async () => {
    const bash = new LoweringBash(2500, () => ({ ...TIMED_OUT, stdout: partial }))
    const ctx = { bash, rg: RG, config: Config.parse({}), spillStore: () => undefined, access: () => undefined }
    const result = await executeGrep(ctx, { pattern: 'needle' }, { signal: new AbortController().signal, name: 'grep', callId: 'c', agent })
    expect(result.content).toContain("(Stopped after 2.5 s, the search's time limit: partial result, 3 matches in 2 files so far;")
    expect(result.value).toMatchObject({ incomplete: [expect.stringMatching(/^stopped after 2\.5 s \(timeoutMs\)/)] })
  })

  it("is SEARCH_ABORTED, and returns nothing, when the caller cancelled as the executor's limit ran out", async () => {
    const controller = new AbortController()
    const bash = new FakeBash(() => {
      controller.abort()
      return { ...TIMED_OUT, stdout: partial }
    })
    const ctx = { bash, rg: RG, config: Config.parse({}), spillStore: () => undefined, access: () => undefined }
    const exec: ToolExecContext = { signal: controller.signal, name: 'grep', callId: 'c', agent }
    await expect(executeGrep(ctx, { pattern: 'needle' }, exec)).rejects.toMatchObject({
      code: 'SEARCH_ABORTED',
      message: 'grep was cancelled before rg finished; no result was produced.',
    })
  })

  it('is SEARCH_ABORTED when the registry deadline fired rather than the executor (it discards any result)', async () => {
    const controller = new AbortController()
    controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline'))
    const ctx = {
      bash: new FakeBash(() => ({ stop: 'abort', exitCode: null })),
      rg: RG,
      config: Config.parse({}),
      spillStore: () => undefined,
      access: () => undefined,
    }
    await expect(executeGrep(ctx, { pattern: 'x' }, { signal: controller.signal, name: 'grep', callId: 'c' })).rejects.toMatchObject({
      code: 'SEARCH_ABORTED',
      message: expect.stringMatching(/^grep timed out before rg finished; no result was produced\./),
    })
  })
})

describe('glob stopped by its timeout', () => {
  // Four whole records out of mtime order, then one cut off before its NUL.
  const partial = `${statRecords(['200', 'mid.ts'], ['100', 'old.ts'], ['400', 'newest.ts'], ['300', 'new.ts'])}500\tcut-off.t`
  const note = (found: string) =>
    `(Stopped after 30 s, the search's time limit: partial result, ${found} so far; rg had not finished, so more may exist. Narrow the pattern or path, or raise timeoutMs.)`

  it('sorts the files listed so far newest first, the record it was cut off in dropped, marked partial', async () => {
    const { harness, glob } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: partial }))
    const result = await glob({ pattern: '*.ts' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(`newest.ts\nnew.ts\nmid.ts\nold.ts\n\n${note('4 files')}`)
    expect(result.value).toEqual({ paths: ['newest.ts', 'new.ts', 'mid.ts', 'old.ts'], total: 4, truncated: false, incomplete: [GAP_30S] })
    expect(harness.registry.present('glob', { pattern: '*.ts' }, result)).toMatchObject({ total: 4, incomplete: true })
  })

  it('pages and spills a capped partial listing as usual', async () => {
    const store = new MemorySpill()
    const { glob } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: partial }), { globMaxResults: 2 }, store)
    const result = await glob({ pattern: '*.ts' })
    expect(result.content).toMatch(
      /^newest\.ts\nnew\.ts\n\n\(Stopped after 30 s[^\n]*4 files so far[^\n]*\n\n\(Showing 2 of 4 paths, newest first\./,
    )
    expect(store.saved[0]?.text).toBe('newest.ts\nnew.ts\nmid.ts\nold.ts\n')
  })

  it('is a partial result with no file when the listing was stopped before any arrived', async () => {
    const { glob } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: '', stderr: 'rg: ./locked: Permission denied (os error 13)\n' }))
    const result = await glob({ pattern: '*.ts' })
    expect(result.content).toBe(
      `No files found so far\n\n${note('no files')}\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)`,
    )
    expect(result.value).toMatchObject({ total: 0, incomplete: [GAP_30S, './locked: Permission denied (os error 13)'] })
  })

  it('is one file, not "files", and still fails on a record that did not parse before the cut', async () => {
    const { glob } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: statRecords(['1', 'only.ts']) }))
    expect((await glob({ pattern: '*' })).content).toContain('partial result, 1 file so far;')
    const { glob: garbled } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: 'not-a-time\tx.ts\0' }))
    expect(await garbled({ pattern: '*' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
  })

  it('is the same for Glob of the claude-code profile', async () => {
    const { harness } = await fakeHarness(() => ({ ...TIMED_OUT, stdout: partial }), { profile: 'claude-code' })
    const result = await harness.registry.execute('Glob', { pattern: '*.ts' }, { agent })
    expect(result.content).toBe(`newest.ts\nnew.ts\nmid.ts\nold.ts\n\n${note('4 files')}`)
    expect(result.value).toMatchObject({ incomplete: [GAP_30S] })
    expect(harness.registry.present('Glob', { pattern: '*.ts' }, result)).toMatchObject({ incomplete: true })
  })
})

describe('Grep of the claude-code profile stopped by its timeout', () => {
  const grep = async (scripted: Scripted, args: Record<string, unknown>, store?: MemorySpill) => {
    const { harness, bash } = await fakeHarness(() => ({ ...TIMED_OUT, ...scripted }), { profile: 'claude-code' }, store)
    return { result: await harness.registry.execute('Grep', { pattern: 'needle', ...args }, { agent, callId: 'call-1' }), bash }
  }
  const note = (found: string) =>
    `(Stopped after 30 s, the search's time limit: partial result, ${found} so far; rg had not finished, so more may exist. Narrow the pattern, path, glob or type, or raise timeoutMs.)`

  it('content: the lines rg printed, the one it was cut off in dropped', async () => {
    const stdout = `D\0a.ts\u00002:needle a\nb.ts\u00005:needle b\nb.ts\u00006:needle b again\nc.ts\u00001:nee`
    const { result, bash } = await grep({ stdout }, { output_mode: 'content', '-n': true, multiline: false })
    expect(result.content).toBe(
      `Found 3 matching lines in 2 files\n\na.ts\nLine 2: needle a\n\nb.ts\nLine 5: needle b\nLine 6: needle b again\n\n${note('3 matching lines in 2 files')}`,
    )
    expect(result.value).toMatchObject({ mode: 'content', total: 3, matches: 3, truncated: false, incomplete: [GAP_30S] })
    expect(bash.searches()).toHaveLength(1)
  })

  it('files_with_matches: the files listed so far, newest first, the record it was cut off in dropped', async () => {
    const stdout = `D\0${statRecords(['100', './old.ts'], ['300', './new.ts'])}200\t./cu`
    const { result } = await grep({ stdout }, {})
    expect(result.content).toBe(`Found 2 files, newest modified first\n\nnew.ts\nold.ts\n\n${note('2 files')}`)
    expect(result.value).toMatchObject({ mode: 'files_with_matches', total: 2, incomplete: [GAP_30S] })
  })

  it('count: the files counted so far, a count cut off before its newline dropped', async () => {
    const { result } = await grep({ stdout: 'D\0./b.ts\u00003\n./a.ts\u00001\n./c.ts\u00004' }, { output_mode: 'count' })
    expect(result.content).toBe(`Found 4 matching lines in 2 files\n\na.ts:1\nb.ts:3\n\n${note('4 matching lines in 2 files')}`)
    const cutInPath = await grep({ stdout: 'D\0./b.ts\u00003\n./a.t' }, { output_mode: 'count' })
    expect(cutInPath.result.content).toBe(`Found 3 matching lines in 1 file\n\nb.ts:3\n\n${note('3 matching lines in 1 file')}`)
  })

  it.each([
    ['content', 'No matches found so far', 'no matches'],
    ['files_with_matches', 'No files found so far', 'no files'],
    ['count', 'No matches found so far', 'no matches'],
  ])('%s: a partial result with nothing in it when rg was stopped before it printed', async (output_mode, heading, found) => {
    for (const stdout of ['', 'D']) {
      const { result } = await grep({ stdout }, { output_mode })
      expect(result).toMatchObject({ isError: false, content: `${heading}\n\n${note(found)}` })
    }
  })

  it('still fails on a script head or a record that did not parse', async () => {
    for (const output_mode of ['files_with_matches', 'count']) {
      expect((await grep({ stdout: 'XY' }, { output_mode })).result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    }
    expect((await grep({ stdout: 'D\0./a.ts\u0000x\n' }, { output_mode: 'count' })).result).toMatchObject({ errorCode: 'SEARCH_FAILED' })
  })

  it('pages a partial result, and its spill says it is partial', async () => {
    const store = new MemorySpill()
    const stdout = 'D\0./b.ts\u00003\n./a.ts\u00001\n'
    const { result } = await grep({ stdout }, { output_mode: 'count', head_limit: 1 }, store)
    expect(result.content).toMatch(
      /^Found 4 matching lines in 2 files\n\na\.ts:1\n\n\(Stopped after 30 s[^\n]*\n\n\(Showing files 1-1 of 2;/,
    )
    expect(store.saved[0]?.text).toBe(`Found 4 matching lines in 2 files\n\na.ts:1\nb.ts:3\n\n${note('4 matching lines in 2 files')}\n`)
  })
})

/** A fake executor that, as a backend may, lowers every request's time limit to its own ceiling. */
class LoweringBash extends FakeBash {
  constructor(
    private readonly ceilingMs: number,
    script: (command: string, spec: BashSpec) => Scripted,
  ) {
    super(script)
  }

  override async resolve(request: BashRequest): Promise<BashSpec> {
    const spec = await super.resolve(request)
    return { ...spec, timeoutMs: Math.min(spec.timeoutMs, this.ceilingMs) }
  }
}
