import { describe, expect, it } from 'vitest'
import { HarnessError, loadHarness, type ToolExecContext } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { Config } from '../src/config.js'
import { buildGrepCommand, planInclude } from '../src/grep-command.js'
import { executeGrep } from '../src/grep.js'
import { FakeBash, isProbe, MemorySpill, rgLines, type Scripted } from './fake-bash.js'

const RG = '/opt/rg'
const agent = { session: { header: { id: 'sess-1', cwd: '/work/repo' } } }

async function harnessWith(script: (command: string) => Scripted | Promise<Scripted>, config: Record<string, unknown> = {}, spillStore?: MemorySpill) {
  const bash = new FakeBash((command) => (isProbe(command) ? {} : script(command)))
  const harness = await loadHarness({
    plugins: [toolFsSearch],
    services: { bash, ...(spillStore === undefined ? {} : { spillStore }) },
    config: { 'tool-fs-search': { rgPath: RG, ...config } },
  })
  return { bash, grep: (args: Record<string, unknown>, options = {}) => harness.registry.execute('grep', args, { agent, callId: 'call-7', ...options }) }
}

describe('grep command construction', () => {
  it('puts the pattern after -e and the target after --, reads stdin from /dev/null and ignores user config', () => {
    const command = buildGrepCommand(RG, { pattern: '-rf $(touch x)', target: '-dir with space', include: undefined }, 2000)
    expect(command).toBe(
      [
        "if [ -d './-dir with space' ]; then cd -- './-dir with space' || exit 3; printf 'D\\0'; set -- -- .",
        "elif [ -e './-dir with space' ]; then printf 'F\\0'; set -- -- './-dir with space'",
        'else exit 4; fi',
        "/opt/rg --no-config --null --line-number --with-filename --no-heading '--color=never' --hidden '--max-columns=2000' --max-columns-preview '--glob=!.git' '--glob=!.svn' '--glob=!.hg' '--glob=!.bzr' '--glob=!.jj' '--glob=!.sl' -e '-rf $(touch x)' \"$@\" </dev/null",
      ].join('\n'),
    )
  })

  it('narrows the search to the directory of an "every file under X" include', () => {
    const command = buildGrepCommand(RG, { pattern: 'x', target: '/abs', include: 'src/lib/**' }, 100)
    expect(command).toContain("cd -- /abs || exit 3; printf 'D\\0'; [ -e ./src/lib ] || exit 1; set -- -- ./src/lib")
    expect(command).not.toContain('--glob=src')
  })

  it.each([
    [undefined, { args: [] }],
    ['*.ts', { args: ['--type-add=dshinclude:*.ts', '--type=dshinclude'] }],
    ['**/*.{ts,tsx}', { args: ['--type-add=dshinclude:*.{ts,tsx}', '--type=dshinclude'] }],
    ['./**/*.js', { args: ['--type-add=dshinclude:*.js', '--type=dshinclude'] }],
    ['**', { args: [] }],
    ['**/*', { args: [] }],
    ['**/**/*', { args: [] }],
    ['*', { args: [] }],
    ['src/**', { args: [], subdir: 'src' }],
    ['./a/b/**/*', { args: [], subdir: 'a/b' }],
    ['src/**/*.ts', { args: ['--glob=src/**/*.ts'] }],
    ['*/src/**', { args: ['--glob=*/src/**'] }],
    ['a:b*', { args: ['--glob=a:b*'] }],
    ['.git/**', { args: ['--glob=.git/**'] }],
    ['pkg/.hg/**/*', { args: ['--glob=pkg/.hg/**/*'] }],
  ])('plans include %j so it cannot re-open ignored trees', (include, plan) => {
    expect(planInclude(include)).toEqual(plan)
  })
})

describe('grep through the registry with a fake executor', () => {
  it('groups matches by file, sorted by path then line, with paths relative to the session cwd', async () => {
    const { bash, grep } = await harnessWith(() => ({
      stdout: rgLines(['./src/b.ts', 9, 'b9'], ['./src/a.ts', 3, 'a3\r'], ['./src/b.ts', 2, 'b2'], ['/work/repo/c.ts', 1, 'c1'], ['/elsewhere/d.ts', 4, 'd4']),
    }))
    const result = await grep({ pattern: 'x' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(
      'Found 5 matches\n\n/elsewhere/d.ts\nLine 4: d4\n\nc.ts\nLine 1: c1\n\nsrc/a.ts\nLine 3: a3\n\nsrc/b.ts\nLine 2: b2\nLine 9: b9',
    )
    expect(bash.requests.at(-1)).toMatchObject({ workdir: '/work/repo', stdoutMaxBytes: 20_000_000, onStdoutOverflow: 'kill', timeoutMs: 30_000 })
    expect(result.value).toMatchObject({ total: 5, truncated: false, incomplete: [] })
  })

  it('omits the workdir when the call has no session, so the executor applies its own', async () => {
    const { bash, grep } = await harnessWith(() => ({ stdout: rgLines(['./a', 1, 'x']) }))
    const result = await grep({ pattern: 'x', path: 'sub' }, { agent: undefined })
    expect(bash.requests.at(-1)).not.toHaveProperty('workdir')
    expect(bash.searches().at(-1)).toContain("if [ -d ./sub ]")
    expect(result.content).toBe('Found 1 match\n\nsub/a\nLine 1: x')
  })

  it('says "No matches found" for exit 1', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 1, stdout: 'D\0' }))
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: false, content: 'No matches found' })
  })

  it('hands the same aborted signal to the bash backend and answers SEARCH_ABORTED', async () => {
    const bash = new FakeBash(
      (_command, spec) =>
        new Promise<Scripted>((resolve) => spec.signal?.addEventListener('abort', () => resolve({ aborted: true, exitCode: null, signal: 'SIGTERM' }))),
    )
    const controller = new AbortController()
    const exec: ToolExecContext = { signal: controller.signal, name: 'grep', callId: 'c', agent }
    const ctx = { bash, rg: RG, config: Config.parse({}), spillStore: () => undefined, access: () => undefined }
    const pending = executeGrep(ctx, { pattern: 'x' }, exec)
    setTimeout(() => controller.abort(), 10)
    await expect(pending).rejects.toMatchObject({ code: 'SEARCH_ABORTED', message: 'grep was cancelled before rg finished; no result was produced.' })
    expect(bash.specs[0]?.signal).toBe(exec.signal)
  })

  it('answers SEARCH_ABORTED through the registry when the caller cancels', async () => {
    const bash = new FakeBash((command, spec) =>
      isProbe(command)
        ? {}
        : new Promise<Scripted>((resolve) => spec.signal?.addEventListener('abort', () => resolve({ aborted: true, exitCode: null }))),
    )
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    const controller = new AbortController()
    const pending = harness.registry.execute('grep', { pattern: 'x' }, { signal: controller.signal, agent })
    setTimeout(() => controller.abort(), 10)
    expect(await pending).toMatchObject({ isError: true, errorCode: 'SEARCH_ABORTED' })
    expect(bash.specs.at(-1)?.signal?.aborted).toBe(true)
  })

  it('tells a timeout from a cancellation', async () => {
    const { grep } = await harnessWith(() => ({ timedOut: true, exitCode: null, signal: 'SIGTERM' }))
    expect(await grep({ pattern: 'x' })).toMatchObject({
      errorCode: 'SEARCH_ABORTED',
      content: 'grep timed out before rg finished; no result was produced. Narrow the pattern or path and search again.',
    })
    const ctx = { bash: new FakeBash(() => ({ aborted: true, exitCode: null })), rg: RG, config: Config.parse({}), spillStore: () => undefined, access: () => undefined }
    const controller = new AbortController()
    controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline'))
    await expect(executeGrep(ctx, { pattern: 'x' }, { signal: controller.signal, name: 'grep', callId: 'c' })).rejects.toThrow('grep timed out')
  })

  it.each([
    ['the executor reports truncated stdout', { stdoutTruncated: true }],
    ['the executor stopped rg at the cap', { stdoutOverflowKilled: true, exitCode: null, signal: 'SIGTERM' }],
  ])('answers SEARCH_RAW_OUTPUT_OVERFLOW when %s', async (_case, scripted) => {
    const { grep } = await harnessWith(() => scripted)
    expect(await grep({ pattern: 'x' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_RAW_OUTPUT_OVERFLOW',
      content: 'grep stopped: rg produced more than 20000000 bytes of output. Narrow the pattern, path or include and search again.',
    })
  })

  it('reports SEARCH_INVALID_PATTERN from rg stderr, never "no matches"', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: 'D\0', stderr: 'rg: regex parse error:\n    (?:a()\n    ^\nerror: unclosed group\n' }))
    const result = await grep({ pattern: 'a(' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(result.content).toContain('error: unclosed group')
  })

  it('keeps the matches of an exit 2 and reports the search incomplete, naming the unreadable paths', async () => {
    const stderr = Array.from({ length: 7 }, (_, i) => `rg: ./locked${i}: Permission denied (os error 13)`).join('\n')
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: rgLines(['./ok.ts', 1, 'hit']), stderr }))
    const result = await grep({ pattern: 'hit' })
    expect(result.isError).toBe(false)
    expect(result.content).toBe(
      'Found 1 match\n\nok.ts\nLine 1: hit\n\n(Search incomplete: rg could not read 7 paths, so results from them are missing: ./locked0: Permission denied (os error 13); ./locked1: Permission denied (os error 13); ./locked2: Permission denied (os error 13); ./locked3: Permission denied (os error 13); ./locked4: Permission denied (os error 13); and 2 more.)',
    )
  })

  it('reports no matches, incomplete, when only some subpaths failed', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: 'D\0', stderr: 'rg: ./locked: Permission denied (os error 13)\n' }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      'No matches found\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
  })

  it.each([
    ['a missing search root', 'F\0', 'rg: ./nope: IO error for operation on ./nope: No such file or directory (os error 2)\n', /^grep cannot search nope: rg: \.\/nope: IO error/],
    ['an exit 2 without any error line', 'D\0', 'something odd\n', /^grep cannot search nope: something odd Check the path/],
  ])('reports SEARCH_FAILED for %s', async (_case, stdout, stderr, content) => {
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout, stderr }))
    const result = await grep({ pattern: 'x', path: 'nope' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(result.content).toMatch(content)
  })

  it('reports SEARCH_FAILED when the subdirectory of an include cannot be read', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: 'D\0', stderr: 'rg: ./src: Permission denied (os error 13)\n' }))
    expect(await grep({ pattern: 'x', include: 'src/**' })).toMatchObject({ errorCode: 'SEARCH_FAILED' })
  })

  it.each([
    [{ exitCode: 127, stderr: 'bash: line 1: /opt/rg: No such file or directory' }, 'grep failed: ripgrep (/opt/rg) is no longer available to the executor. bash: line 1: /opt/rg: No such file or directory'],
    [{ exitCode: 3, stderr: 'cd: ./.: Permission denied' }, "grep cannot run in the working directory /work/repo: it exists but cannot be entered (permission denied for the executor's user). cd: ./.: Permission denied"],
    [{ exitCode: 9 }, 'grep failed: rg exited with status 9. (rg printed no error)'],
    [{ exitCode: null, signal: 'SIGSEGV' }, 'grep failed: rg exited with status signal SIGSEGV. (rg printed no error)'],
    [{ stdout: 'garbage' }, 'grep could not parse its script output near "garbage"; the search result cannot be trusted.'],
    [{ stdout: 'D\0garbage without a separator' }, `grep could not parse rg's output near "garbage without a separator"; the search result cannot be trusted.`],
    [{ stdout: 'D\0path\0x:broken\n' }, `grep could not parse rg's output near "path\\u0000x:broken\\n"; the search result cannot be trusted.`],
  ])('reports SEARCH_FAILED for %j', async (scripted, content) => {
    const { grep } = await harnessWith(() => scripted)
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })

  it('shows the tail of a long stderr', async () => {
    const stderr = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n')
    const { grep } = await harnessWith(() => ({ exitCode: 9, stderr }))
    expect((await grep({ pattern: 'x' })).content).toBe(`grep failed: rg exited with status 9. …${Array.from({ length: 8 }, (_, i) => `line ${i + 4}`).join('\n')}`)
  })

  it('reports SEARCH_FAILED when the executor cannot resolve or run', async () => {
    const { bash, grep } = await harnessWith(() => ({}))
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

  it('notes binary files and lines that are not valid UTF-8', async () => {
    const { grep } = await harnessWith(() => ({
      stdout: `F\0bin.dat: binary file matches (found "\\0" byte around offset 5)\n${rgLines(['./bad\ufffd.txt', 1, 'needle \ufffd'], ['./ok.txt', 2, 'needle']).slice(2)}`,
    }))
    expect((await grep({ pattern: 'needle' })).content).toBe(
      'Found 2 matches\n\nbad\ufffd.txt\nLine 1: needle \ufffd\n\nok.txt\nLine 2: needle\n\n(Binary file matched, lines not shown: bin.dat.)\n\n(1 matched line or path contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    )
  })

  it('notes several binary files and several lossy lines in the plural', async () => {
    const { grep } = await harnessWith(() => ({
      stdout: `D\0a: binary file matches (found "\\0" byte around offset 1)\nb: binary file matches (found "\\0" byte around offset 2)\n${rgLines(['x', 1, '\ufffd'], ['y', 1, '\ufffd']).slice(2)}./z: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n`,
    }))
    const { content } = await grep({ pattern: 'x' })
    expect(content).toContain('(Binary files matched, lines not shown: a, b.)')
    expect(content).toContain('(2 matched lines or paths contain U+FFFD')
    expect(content).toContain('(rg stopped at binary content in z, so matches after it are missing.)')
  })

  it('merges two raw paths that display the same into one group', async () => {
    const { grep } = await harnessWith(() => ({ stdout: rgLines(['./dup.ts', 3, 'c'], ['dup.ts', 1, 'a'], ['./dup.ts', 2, 'b']) }))
    expect((await grep({ pattern: 'x' })).content).toBe('Found 3 matches\n\ndup.ts\nLine 1: a\nLine 2: b\nLine 3: c')
  })

  it('shows a path with a newline on one line, JSON-quoted', async () => {
    const { grep } = await harnessWith(() => ({ stdout: rgLines(['./two\nlines.txt', 5, 'hit']) }))
    expect((await grep({ pattern: 'hit' })).content).toBe('Found 1 match\n\n"two\\nlines.txt"\nLine 5: hit')
  })

  it('cuts a long line to its byte budget and marks it, whether rg or the retainer cut it', async () => {
    const { grep } = await harnessWith(() => ({ stdout: rgLines(['a', 1, `${'é'.repeat(10)} [... omitted end of long line]`], ['b', 1, 'x'.repeat(30)]) }), {
      grepMaxLineBytes: 12,
    })
    expect((await grep({ pattern: 'x' })).content).toBe('Found 2 matches\n\na\nLine 1 (cut): éééééé\n\nb\nLine 1 (cut): xxxxxxxxxxxx')
  })
})

describe('grep spill', () => {
  const many = () => ({ stdout: rgLines(...Array.from({ length: 5 }, (_, i) => [`f${i}.ts`, i + 1, `hit ${i}`] as [string, number, string])) })

  it('saves the complete formatted result and names it in the footer', async () => {
    const store = new MemorySpill()
    const { grep } = await harnessWith(many, { grepMaxMatches: 2 }, store)
    const result = await grep({ pattern: 'hit' })
    expect(result.content).toBe(
      'Found 2 of 5 matches\n\nf0.ts\nLine 1: hit 0\n\nf1.ts\nLine 2: hit 1\n\n(Full grep result stored at: /spill/sess-1/0001-grep-results.txt. Use read with offset/limit, or grep this path to search within it.)',
    )
    expect(store.saved).toEqual([
      {
        owner: 'sess-1',
        source: { toolName: 'grep', callId: 'call-7', label: 'result' },
        filename: 'grep-results.txt',
        text: 'Found 5 matches\n\nf0.ts\nLine 1: hit 0\n\nf1.ts\nLine 2: hit 1\n\nf2.ts\nLine 3: hit 2\n\nf3.ts\nLine 4: hit 3\n\nf4.ts\nLine 5: hit 4\n',
      },
    ])
    expect(result.value).toMatchObject({ total: 5, truncated: true })
    expect(result.spilledTo).toBe('/spill/sess-1/0001-grep-results.txt')
  })

  it('keeps the inline page and says the rest could not be saved when there is no store', async () => {
    const { grep } = await harnessWith(many, { grepMaxMatches: 2 })
    const result = await grep({ pattern: 'hit' })
    expect(result.isError).toBe(false)
    expect(result.content).toMatch(/\n\n\(The complete result could not be saved \(no spill store is configured\); narrow the search to see the rest\.\)$/)
    expect(result).not.toHaveProperty('spilledTo')
  })

  it('keeps the inline page when saving fails or the call has no session', async () => {
    const store = new MemorySpill()
    const { grep } = await harnessWith(many, { grepMaxMatches: 2 }, store)
    store.failWith = new Error('EROFS: read-only file system')
    expect((await grep({ pattern: 'hit' })).content).toContain('(The complete result could not be saved (saving failed: EROFS: read-only file system)')
    store.failWith = 'disk gone' as unknown as Error
    expect((await grep({ pattern: 'hit' })).content).toContain('(saving failed: disk gone)')
    store.failWith = undefined
    const noSession = await grep({ pattern: 'hit' }, { agent: undefined })
    expect(noSession).toMatchObject({ isError: false })
    expect(noSession.content).toContain('(the call has no session to own the file)')
    const blank = await grep({ pattern: 'hit' }, { agent: { session: { header: { id: '', cwd: '/w' } } } })
    expect(blank.content).toContain('(the call has no session to own the file)')
    expect(store.saved).toEqual([])
  })

  it('creates no spill when everything fits', async () => {
    const store = new MemorySpill()
    const { grep } = await harnessWith(many, {}, store)
    await grep({ pattern: 'hit' })
    expect(store.saved).toEqual([])
  })

  it('caps matches per file when the page is full, naming the files cut', async () => {
    const records: [string, number, string][] = [
      ...Array.from({ length: 6 }, (_, i) => ['gen.js', i + 1, 'hit'] as [string, number, string]),
      ['src.ts', 1, 'hit'],
    ]
    const { grep } = await harnessWith(() => ({ stdout: rgLines(...records) }), { grepMaxMatches: 4, grepMaxMatchesPerFile: 2 })
    expect((await grep({ pattern: 'hit' })).content).toMatch(
      /^Found 3 of 7 matches\n\ngen\.js\nLine 1: hit\nLine 2: hit\n\nsrc\.ts\nLine 1: hit\n\n\(Per-file cap: these files show only some of their matches: gen\.js \(2 of 6\)\.\)/,
    )
  })

  it('keeps the page within the inline byte budget', async () => {
    const records = Array.from({ length: 50 }, (_, i) => [`file${i}.ts`, 1, 'x'.repeat(80)] as [string, number, string])
    const { grep } = await harnessWith(() => ({ stdout: rgLines(...records) }), { inlineMaxBytes: 1000 })
    const { content } = await grep({ pattern: 'x' })
    const page = content.split('\n\n(')[0]!
    const header = /^Found (\d+) of 50 matches\n\n/.exec(page)
    expect(header).not.toBeNull()
    expect(Buffer.byteLength(page) - header![0].length).toBeLessThanOrEqual(1000)
    expect(Number(header![1])).toBeGreaterThan(5)
  })
})

describe('grep under a hostile review', () => {
  it.each([
    ['./!src/*.ts', 'include must not start with "!" (after "./"): a leading "!" would negate the glob; to search a directory named "!src", pass it as path'],
    ['*.ts/', 'include "*.ts/" ends in "/", so it names directories, not files'],
    ['a/*/', 'include "a/*/" ends in "/"'],
    ['*\uD800.ts', 'include must be valid Unicode: it holds a lone surrogate (U+D800), which would be searched as U+FFFD'],
  ])('refuses the include %j as an argument error', async (include, message) => {
    const { bash, grep } = await harnessWith(() => ({}))
    const result = await grep({ pattern: 'x', include })
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain(message)
    expect(bash.searches()).toEqual([])
  })

  it.each(['needle \uD800', '\uDFFF'])('refuses the pattern %j: a lone surrogate would silently become U+FFFD', async (pattern) => {
    const { grep } = await harnessWith(() => ({}))
    const result = await grep({ pattern })
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain('pattern must be valid Unicode: it holds a lone surrogate')
  })

  it('accepts a pattern with a surrogate pair (an astral character)', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 1, stdout: 'D\0' }))
    expect(await grep({ pattern: 'smile 😀' })).toMatchObject({ isError: false })
  })

  it.each([
    ['src', { args: ['--type-add=dshinclude:src', '--type=dshinclude'], name: 'src' }],
    ['src/', { args: [], subdir: 'src' }],
    ['./src/lib/', { args: [], subdir: 'src/lib' }],
    ['src/./a/*.ts', { args: ['--glob=src/a/*.ts'] }],
    ['src//a/**', { args: [], subdir: 'src/a' }],
    ['.git', { args: ['--type-add=dshinclude:.git', '--type=dshinclude'] }],
  ])('plans include %j as a user means it', (include, plan) => {
    expect(planInclude(include)).toEqual(plan)
  })

  it('searches a plain-name include as the directory when there is one, else as file names', () => {
    expect(buildGrepCommand(RG, { pattern: 'x', target: '.', include: 'src' }, 100)).toContain(
      "if [ -d ./src ]; then set -- -- ./src; else set -- '--type-add=dshinclude:src' '--type=dshinclude' -- .; fi",
    )
  })

  it('reports a missing path as SEARCH_FAILED, quoting a name with a newline', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 4 }))
    expect(await grep({ pattern: 'x', path: 'gone\nname' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_FAILED',
      content: 'grep cannot search "gone\\nname": no such file or directory (or a directory above it cannot be entered). Check the path.',
    })
  })

  it('fails a search of one file that rg could not read, whatever its stderr says', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: 'F\0', stderr: 'rg: ./odd\nname: Permission denied (os error 13)\n' }))
    expect(await grep({ pattern: 'x', path: 'odd\nname' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
  })

  it('marks a search incomplete when rg exits 2 with matches but an error it does not tie to a path', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: rgLines(['./ok.ts', 1, 'hit']), stderr: 'tail of something odd\n', stderrTruncated: true }))
    const result = await grep({ pattern: 'hit' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe('Found 1 match\n\nok.ts\nLine 1: hit\n\n(Search incomplete: rg exited with status 2, so some results may be missing; it printed: …tail of something odd.)')
    expect(result.value).toMatchObject({ incomplete: ['…tail of something odd'] })
  })

  it('refuses an include with a file as path (the script exits 6), never ignoring it silently', async () => {
    const { bash, grep } = await harnessWith(() => ({ exitCode: 6 }))
    expect(await grep({ pattern: 'x', path: 'f.ts', include: '*.js' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_INVALID_PATTERN',
      content: 'grep include "*.js" filters the files of a directory search, but path f.ts is a file, so it cannot apply. Drop include to search the file, or pass its directory as path.',
    })
    expect(bash.searches().at(-1)).toContain('elif [ -e ./f.ts ]; then exit 6\n')
  })

  it('reports SEARCH_INVALID_PATTERN for a pattern that needs a NUL byte, not an unreadable path', async () => {
    const stderr = 'rg: pattern contains "\\0" but it is impossible to match\n\nConsider enabling text mode with the --text flag (or -a for short). Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible.\n'
    const { grep } = await harnessWith(() => ({ exitCode: 2, stdout: 'D\0', stderr }))
    expect(await grep({ pattern: '\\x00' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_INVALID_PATTERN',
      content: 'grep cannot match a NUL byte: it skips binary files, so a pattern that needs one (such as \\x00) can never match. Remove it from the pattern.',
    })
  })

  it('names the working directory when the directory to search is the one that cannot be entered', async () => {
    const { grep } = await harnessWith(() => ({ exitCode: 3, stderr: 'bash: line 1: cd: ./.: Permission denied' }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      "grep cannot run in the working directory /work/repo: it exists but cannot be entered (permission denied for the executor's user). bash: line 1: cd: ./.: Permission denied",
    )
  })

  it('diagnoses a shell that cannot start in the working directory by trying to enter it from elsewhere', async () => {
    const { bash, grep } = await harnessWith((command) =>
      command.startsWith('cd -- ') ? { exitCode: 1, stderr: 'bash: line 1: cd: /work/repo: Permission denied\n' } : {},
    )
    const spawnFailed = new HarnessError('BASH_SPAWN_FAILED', 'could not start the shell /bin/bash in /work/repo (spawn /bin/bash EACCES)')
    const run = bash.run.bind(bash)
    bash.run = async (spec) => (spec.command.startsWith('cd -- ') ? run(spec) : Promise.reject(spawnFailed))
    expect(await grep({ pattern: 'x' })).toMatchObject({
      errorCode: 'SEARCH_FAILED',
      content: 'grep cannot run in the working directory /work/repo: bash: line 1: cd: /work/repo: Permission denied. Choose a directory the executor can enter.',
    })
    expect(bash.requests.at(-1)).toEqual({ command: 'cd -- /work/repo', timeoutMs: 10_000, signal: expect.any(AbortSignal) })
  })

  it.each([
    ['the diagnosis enters the directory fine', () => ({ exitCode: 0 })],
    ['the diagnosis cannot run either', () => Promise.reject(new Error('no shell at all'))],
  ])('keeps the executor message when %s', async (_case, diagnose) => {
    const { bash, grep } = await harnessWith(() => ({}))
    const diagnosis = new FakeBash(diagnose)
    bash.run = async (spec) => {
      if (spec.command.startsWith('cd -- ')) return diagnosis.run(spec)
      throw new HarnessError('BASH_SPAWN_FAILED', 'could not start the shell /bin/bash in /work/repo (spawn /bin/bash EACCES)')
    }
    expect((await grep({ pattern: 'x' })).content).toBe('grep could not run [BASH_SPAWN_FAILED]: could not start the shell /bin/bash in /work/repo (spawn /bin/bash EACCES)')
  })

  it('quotes the stdout cap the executor applied, not the configured one', async () => {
    const bash = new FakeBash((command) => (isProbe(command) ? {} : { stdoutOverflowKilled: true, exitCode: null }))
    bash.maxStdoutMaxBytes = 4096
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: RG } } })
    expect((await harness.registry.execute('grep', { pattern: 'x' }, { agent })).content).toBe(
      'grep stopped: rg produced more than 4096 bytes of output. Narrow the pattern, path or include and search again.',
    )
  })

  it('does not show a line that ends in the cut marker text as cut, nor a cut line as whole', async () => {
    const { grep } = await harnessWith(() => ({ stdout: rgLines(['a', 1, 'plain […line cut]'], ['b', 1, `${'x'.repeat(40)}`]) }), { grepMaxLineBytes: 20 })
    expect((await grep({ pattern: 'x' })).content).toBe(`Found 2 matches\n\na\nLine 1: plain […line cut]\n\nb\nLine 1 (cut): ${'x'.repeat(20)}`)
  })

  it('escapes control characters in lines and paths, keeps tabs, and says so in a footer', async () => {
    const { grep } = await harnessWith(() => ({
      stdout: rgLines(['./e\u001b[2Jx', 1, 'a\u001b[31m\tb\rLine 2: forged\u0000\u007f\u009b'], ['./ok', 2, 'plain\tline']),
    }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      [
        'Found 2 matches',
        '"e\\u001b[2Jx"\nLine 1: a\\u001b[31m\tb\\rLine 2: forged\\u0000\\u007f\\u009b',
        'ok\nLine 2: plain\tline',
        '(1 matched line contains control characters, shown escaped as \\u001b, \\r and the like.)',
      ].join('\n\n'),
    )
  })

  it('counts several escaped lines in the plural', async () => {
    const { grep } = await harnessWith(() => ({ stdout: rgLines(['a', 1, '\u001b'], ['a', 2, '\u0007']) }))
    expect((await grep({ pattern: 'x' })).content).toContain('(2 matched lines contain control characters')
  })

  it('saves no spill when the call was aborted while rg was finishing', async () => {
    const store = new MemorySpill()
    const records = Array.from({ length: 5 }, (_, i) => [`f${i}`, 1, 'hit'] as [string, number, string])
    // rg exits just as the deadline fires: the executor reports a clean run after the abort.
    const bash = new FakeBash((_command, spec) => new Promise<Scripted>((resolve) => spec.signal?.addEventListener('abort', () => resolve({ stdout: rgLines(...records) }))))
    const controller = new AbortController()
    const ctx = { bash, rg: RG, config: Config.parse({ grepMaxMatches: 2 }), spillStore: () => store, access: () => undefined }
    const pending = executeGrep(ctx, { pattern: 'hit' }, { signal: controller.signal, name: 'grep', callId: 'c', agent })
    setTimeout(() => controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline')), 10)
    await expect(pending).rejects.toMatchObject({ code: 'SEARCH_ABORTED', message: 'grep timed out before rg finished; no result was produced. Narrow the pattern or path and search again.' })
    expect(store.saved).toEqual([])
  })

  it('saves no spill when the call is aborted while the result is being built', async () => {
    const store = new MemorySpill()
    const controller = new AbortController()
    const records = Array.from({ length: 5 }, (_, i) => [`f${i}`, 1, 'hit'] as [string, number, string])
    const bash = new FakeBash(() => ({ stdout: rgLines(...records) }))
    const spillStore = () => {
      controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline'))
      return store
    }
    const ctx = { bash, rg: RG, config: Config.parse({ grepMaxMatches: 2 }), spillStore, access: () => undefined }
    await expect(executeGrep(ctx, { pattern: 'hit' }, { signal: controller.signal, name: 'grep', callId: 'c', agent })).rejects.toMatchObject({ code: 'SEARCH_ABORTED' })
    expect(store.saved).toEqual([])
  })
})
