import { chmodSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { HarnessError, loadHarness, type Harness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isProbe, rgLines, type Scripted } from '../fake-bash.js'
import { agent, fakeHarness, RG } from '../fake-harness.js'
import { Config } from '../../src/config.js'
import { runSearchCommand } from '../../src/engine/run.js'
import { callTool, canLock, loadRealHarness, nobodyHarness, scratchDirs, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('a search run through the seam, faked', () => {
  it('omits the workdir when the call has no session, so the executor applies its own', async () => {
    const { bash, grep } = await fakeHarness(() => ({ stdout: rgLines(['./a', 1, 'x']) }))
    const result = await grep({ pattern: 'x', path: 'sub' }, { agent: undefined })
    expect(bash.requests.at(-1)).not.toHaveProperty('workdir')
    expect(bash.searches().at(-1)).toContain('if [ -d ./sub ]')
    expect(result.content).toBe('Found 1 match\n\nsub/a\nLine 1: x')
  })

  it.each([
    ['the executor reports truncated stdout', { stdoutTruncated: true }],
    ['the executor stopped rg at the cap', { stop: 'overflow', exitCode: null, signal: 'SIGTERM' }],
  ] satisfies [string, Scripted][])(
    'answers SEARCH_RAW_OUTPUT_OVERFLOW for a script that does not stream when %s',
    async (_case, scripted) => {
      const bash = new FakeBash(() => scripted)
      const ctx = { bash, rg: RG, config: Config.parse({}), spillStore: () => undefined, access: () => undefined }
      const exec = { signal: new AbortController().signal, name: 'Grep', callId: 'c', agent }
      await expect(runSearchCommand(ctx, exec, { command: 'rg', narrow: 'pattern', stdoutSink: () => undefined })).rejects.toMatchObject({
        code: 'SEARCH_RAW_OUTPUT_OVERFLOW',
        message: 'Grep stopped: rg produced more than 20000000 bytes of output. Narrow the pattern and search again.',
      })
      expect(bash.requests.at(-1)).toMatchObject({ stdoutMaxBytes: 20_000_000, onStdoutOverflow: 'kill' })
    },
  )

  it('asks for every byte of a script whose sink bounds its own memory, and names the workdir before it runs', async () => {
    const bash = new FakeBash(() => ({ stdout: 'D\0' }))
    const ctx = { bash, rg: RG, config: Config.parse({ rawOutputMaxBytes: 10 }), spillStore: () => undefined, access: () => undefined }
    const exec = { signal: new AbortController().signal, name: 'grep', callId: 'c', agent }
    const seen: string[] = []
    const script = {
      command: 'rg',
      narrow: 'pattern',
      stdoutSink: () => seen.push('chunk'),
      streams: true,
      onWorkdir: (dir: string) => seen.push(dir),
    }
    expect(await runSearchCommand(ctx, exec, script)).toMatchObject({ workdir: '/work/repo' })
    expect(seen[0]).toBe('/work/repo')
    expect(bash.requests.at(-1)).toMatchObject({ stdoutMaxBytes: Number.MAX_SAFE_INTEGER })
  })

  it.each([
    [
      { stdoutTruncated: true },
      'SEARCH_RAW_OUTPUT_OVERFLOW',
      // glob asks for every byte: the cap quoted is the one the executor applied anyway.
      /^glob stopped: rg produced more than 9007199254740991 bytes of output\. Narrow the pattern or path and search again\.$/,
    ],
  ])('answers %j with %s', async (scripted, errorCode, content) => {
    const { glob } = await fakeHarness(() => scripted)
    const result = await glob({ pattern: '*', path: 'nope' })
    expect(result).toMatchObject({ isError: true, errorCode })
    expect(result.content).toMatch(content)
  })

  it('hands back a run stopped at its time limit only to a script that asked for it, quoting the limit applied', async () => {
    const bash = new FakeBash(() => ({ stop: 'timeout', exitCode: null, signal: 'SIGTERM', stdout: 'D\0' }))
    const ctx = { bash, rg: RG, config: Config.parse({ timeoutMs: 4000 }), spillStore: () => undefined, access: () => undefined }
    const exec = { signal: new AbortController().signal, name: 'grep', callId: 'c', agent }
    const script = { command: 'rg', narrow: 'pattern', stdoutSink: () => undefined }
    expect(await runSearchCommand(ctx, exec, { ...script, onTimeout: 'partial' })).toMatchObject({
      workdir: '/work/repo',
      timedOut: { afterMs: 4000, narrow: 'pattern' },
    })
    // A run that follows the search (a window fetch) still fails: its output would be cut.
    await expect(runSearchCommand(ctx, exec, script)).rejects.toMatchObject({
      code: 'SEARCH_ABORTED',
      message: expect.stringMatching(/timed out/),
    })
    const finished = { ...ctx, bash: new FakeBash(() => ({ stdout: 'D\0' })) }
    expect(await runSearchCommand(finished, exec, { ...script, onTimeout: 'partial' })).not.toHaveProperty('timedOut')
  })

  it.each([
    [
      { exitCode: 127, stderr: 'bash: line 1: /opt/rg: No such file or directory' },
      'grep failed: ripgrep (/opt/rg) is no longer available to the executor. bash: line 1: /opt/rg: No such file or directory',
    ],
  ])('reports SEARCH_FAILED for %j', async (scripted, content) => {
    const { grep } = await fakeHarness(() => scripted)
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })

  it('reports SEARCH_FAILED when the executor cannot resolve or run', async () => {
    const { bash, grep } = await fakeHarness(() => ({}))
    bash.resolveError = new HarnessError('BASH_WORKDIR_MISSING', 'workdir /gone does not exist')
    expect(await grep({ pattern: 'x' })).toMatchObject({
      errorCode: 'SEARCH_FAILED',
      content: 'grep could not run [BASH_WORKDIR_MISSING]: workdir /gone does not exist',
    })
    bash.resolveError = undefined
    bash.runError = Object.assign(new Error('spawn ENOENT'), {})
    expect((await grep({ pattern: 'x' })).content).toBe('grep could not run: spawn ENOENT')
    bash.runError = 'weird' as unknown as Error
    expect((await grep({ pattern: 'x' })).content).toBe('grep could not run: weird')
  })

  it('diagnoses a shell that cannot start in the working directory by trying to enter it from elsewhere', async () => {
    const { bash, grep } = await fakeHarness((command) =>
      command.startsWith('cd -- ') ? { exitCode: 1, stderr: 'bash: line 1: cd: /work/repo: Permission denied\n' } : {},
    )
    const spawnFailed = new HarnessError('BASH_SPAWN_FAILED', 'could not start the shell /bin/bash in /work/repo (spawn /bin/bash EACCES)')
    const run = bash.run.bind(bash)
    bash.run = async (spec) => (spec.command.startsWith('cd -- ') ? run(spec) : Promise.reject(spawnFailed))
    expect(await grep({ pattern: 'x' })).toMatchObject({
      errorCode: 'SEARCH_FAILED',
      content:
        'grep cannot run in the working directory /work/repo: bash: line 1: cd: /work/repo: Permission denied. Choose a directory the executor can enter.',
    })
    expect(bash.requests.at(-1)).toEqual({ command: 'cd -- /work/repo', timeoutMs: 10_000, signal: expect.any(AbortSignal) })
  })

  it.each([
    ['the diagnosis enters the directory fine', () => ({ exitCode: 0 })],
    ['the diagnosis cannot run either', () => Promise.reject(new Error('no shell at all'))],
  ])('keeps the executor message when %s', async (_case, diagnose) => {
    const { bash, grep } = await fakeHarness(() => ({}))
    const diagnosis = new FakeBash(diagnose)
    bash.run = async (spec) => {
      if (spec.command.startsWith('cd -- ')) return diagnosis.run(spec)
      throw new HarnessError('BASH_SPAWN_FAILED', 'could not start the shell /bin/bash in /work/repo (spawn /bin/bash EACCES)')
    }
    expect((await grep({ pattern: 'x' })).content).toBe(
      'grep could not run [BASH_SPAWN_FAILED]: could not start the shell /bin/bash in /work/repo (spawn /bin/bash EACCES)',
    )
  })

  it('quotes the stdout cap the executor applied, not the configured one', async () => {
    const bash = new FakeBash((command) => (isProbe(command) ? {} : { stop: 'overflow', exitCode: null }))
    bash.maxStdoutMaxBytes = 4096
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: RG } } })
    expect((await harness.registry.execute('grep', { pattern: 'x' }, { agent })).content).toBe(
      'grep stopped: rg produced more than 4096 bytes of output. Narrow the pattern, path or include and search again.',
    )
  })

  it('gives the executor the configured timeout and the registry a later backstop, so the executor reaps rg first', async () => {
    const bash = new FakeBash()
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      config: { 'tool-fs-search': { rgPath: '/opt/rg', timeoutMs: 1000 } },
    })
    expect(harness.registry.list().map((t) => t.timeoutMs)).toEqual([6000, 6000])
    await harness.registry.execute('grep', { pattern: 'x' })
    expect(bash.requests.at(-1)).toMatchObject({ timeoutMs: 1000 })
  })
})

describe('a search run through the real executor', () => {
  const tree = scratchDir('errors')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'other\n' }))

  it('both tools report SEARCH_FAILED when the session cwd does not exist', async () => {
    for (const tool of ['grep', 'glob'] as const) {
      expect(await callTool(harness, tool, { pattern: 'x' }, join(tree, 'gone'))).toMatchObject({
        isError: true,
        errorCode: 'SEARCH_FAILED',
      })
    }
  })

  it('glob output past rawOutputMaxBytes is a page with the true total and the complete spill, not an error', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { rawOutputMaxBytes: 2000 } })
    const many = scratchDir('overflow')
    writeTree(many, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`file-${i}.txt`, ''])))
    const result = await callTool(capped, 'glob', { pattern: '**/*' }, many)
    expect(result.content).toMatch(/\n\n\(Showing 100 of 300 paths, newest first\. Full sorted result stored at: /)
    expect(readFileSync(result.spilledTo!, 'utf8').split('\n').filter(Boolean).sort()).toEqual(
      Array.from({ length: 300 }, (_, i) => `file-${i}.txt`).sort(),
    )
  })

  it('grep output past rawOutputMaxBytes is a page with the true total, not an error', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { rawOutputMaxBytes: 2000 } })
    const many = scratchDir('streamed')
    writeTree(many, { 'lots.txt': 'needle needle needle needle\n'.repeat(50_000) })
    const result = await callTool(capped, 'grep', { pattern: 'needle' }, many)
    expect(result.content).toMatch(/^Found 250 of 50000 matches\n/)
  })
})

describe('budgets the executor can honour', () => {
  const tree = scratchDir('budgets')
  beforeAll(() =>
    writeTree(tree, {
      'lots.txt': 'needle needle needle needle\n'.repeat(5000),
      ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f-${i}.txt`, ''])),
    }),
  )

  it("no search is bound by the executor's stdout maximum: each sink bounds what it keeps", async () => {
    const small = await loadRealHarness({ spillRoot, bash: { defaultStdoutMaxBytes: 1000, maxStdoutMaxBytes: 2000 } })
    expect((await callTool(small, 'grep', { pattern: 'needle' }, tree)).content).toMatch(/^Found 250 of 5000 matches\n/)
    expect((await callTool(small, 'glob', { pattern: '**/*' }, tree)).value).toMatchObject({ total: 301 })
  })
})

describe.skipIf(!canLock)('a working directory the executor cannot enter', () => {
  const tree = scratchDir('perm-causes')
  let nobody: Harness
  beforeAll(async () => {
    writeTree(tree, { 'closed/a.txt': 'needle\n', 'open/b.txt': 'needle\n' })
    nobody = await nobodyHarness(tree, { spillRoot, scratchDir })
    chmodSync(join(tree, 'closed'), 0o000)
  })

  it('a session cwd the executor cannot enter is named as the cause', async () => {
    for (const tool of ['glob', 'grep'] as const) {
      const result = await callTool(nobody, tool, { pattern: 'needle' }, join(tree, 'closed'))
      expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
      expect(result.content).toMatch(
        new RegExp(`^${tool} cannot run in the working directory ${join(tree, 'closed')}: .*permission denied`, 'i'),
      )
    }
  })
})
