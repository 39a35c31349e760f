import { describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { buildGlobCommand, parseGlobListing, sortNewestFirst } from '../src/glob-command.js'
import { Config } from '../src/config.js'
import { executeGlob, retainGlobPaths } from '../src/glob.js'
import { planGlob } from '../src/glob-pattern.js'
import { FakeBash, isProbe, MemorySpill, statRecords, type Scripted } from './fake-bash.js'

const agent = { session: { header: { id: 'sess-1', cwd: '/work/repo' } } }

async function harnessWith(script: (command: string) => Scripted, config: Record<string, unknown> = {}, spillStore?: MemorySpill) {
  const bash = new FakeBash((command) => (isProbe(command) ? {} : script(command)))
  const harness = await loadHarness({
    plugins: [toolFsSearch],
    services: { bash, ...(spillStore === undefined ? {} : { spillStore }) },
    config: { 'tool-fs-search': { rgPath: '/opt/rg', ...config } },
  })
  return { bash, glob: (args: Record<string, unknown>, options = {}) => harness.registry.execute('glob', args, { agent, callId: 'call-9', ...options }) }
}

describe('planGlob (amendment 12)', () => {
  it.each([
    ['**/*.ts', undefined, { root: '.', glob: '**/*.ts' }],
    ['src/**/*.ts', 'pkg', { root: 'pkg', glob: 'src/**/*.ts' }],
    ['./src/*.ts', undefined, { root: 'src', glob: '/*.ts' }],
    ['./**/*.ts', 'pkg', { root: 'pkg', glob: '/**/*.ts' }],
    ['../sibling/*.ts', 'pkg', { root: 'sibling', glob: '/*.ts' }],
    ['/abs/dir/**/*.ts', 'ignored', { root: '/abs/dir', glob: '/**/*.ts' }],
    ['/abs/file.ts', undefined, { root: '/abs', glob: '/file.ts' }],
    ['/*.ts', undefined, { root: '/', glob: '/*.ts' }],
    ['./', undefined, { root: '.', glob: '/**' }],
  ])('plans %j from %j as %j', (pattern, path, plan) => {
    expect(planGlob(pattern, path)).toEqual(plan)
  })
})

describe('the glob script', () => {
  it('lists from inside the root, unsorted, with the model glob before the VCS excludes, in POSIX sh', () => {
    const list =
      "/opt/rg --files --null --no-config --no-ignore --hidden '--color=never' '--glob=-*.ts' '--glob=!.git' '--glob=!.svn' '--glob=!.hg' '--glob=!.bzr' '--glob=!.jj' '--glob=!.sl' </dev/null"
    const dir = "'./it'\\''s $(x)'"
    expect(buildGlobCommand('/opt/rg', { helper: 'find', find: '/usr/bin/find' }, "it's $(x)", '-*.ts')).toBe(
      [
        `[ -d ${dir} ] || { [ -e ${dir} ] && exit 5; exit 4; }`,
        `cd -- ${dir} || exit 3`,
        'exec 4>&1',
        `s=$( { { ${list}; echo "r$?" >&3; } | { /usr/bin/find -files0-from - -maxdepth 0 -printf '%T@\\t%p\\0'; echo "h$?" >&3; } >&4; } 3>&1 )`,
        'r=${s#*r}; r=${r%%[!0-9]*}; h=${s#*h}; h=${h%%[!0-9]*}',
        '[ "$h" -lt 126 ] || exit 125',
        '[ "$h" -eq 0 ] || [ "$r" -gt 2 ] || exit 7',
        'exit "$r"',
      ].join('\n'),
    )
  })

  it('parses mtime records, including names with tabs and newlines', () => {
    expect(parseGlobListing(statRecords(['1700000000.5', 'a\tb'], ['1700000001', 'new\nline'], ['1700000002.1234567890', 'find']))).toEqual([
      { name: 'a\tb', seconds: 1_700_000_000, nanos: 500_000_000 },
      { name: 'new\nline', seconds: 1_700_000_001, nanos: 0 },
      { name: 'find', seconds: 1_700_000_002, nanos: 123_456_789 },
    ])
  })

  it.each(['1\tno-terminator', '1\t\0', 'x\0y\tz\0', 'soon\tname\0'])('fails on the malformed listing %j', (listing) => {
    expect(() => parseGlobListing(listing)).toThrow(/^glob could not parse the file listing near /)
  })

  it('reads an mtime before 1970 as negative, fraction and all', () => {
    expect(parseGlobListing(statRecords(['-315619200.25', 'old']))).toEqual([{ name: 'old', seconds: -315_619_200, nanos: -250_000_000 }])
    const files = parseGlobListing(statRecords(['-1.25', 'a'], ['-1.5', 'b'], ['0', 'c']))
    expect(sortNewestFirst(files).map((f) => f.name)).toEqual(['c', 'a', 'b'])
  })

  it('sorts newest first, then by name, deterministically', () => {
    const files = parseGlobListing(statRecords(['10.000000001', 'b'], ['10.000000002', 'a'], ['11', 'z'], ['10.000000001', 'a'], ['10.000000001', 'a']))
    expect(sortNewestFirst(files).map((f) => `${f.seconds}.${f.nanos}:${f.name}`)).toEqual(['11.0:z', '10.2:a', '10.1:a', '10.1:a', '10.1:b'])
  })

  it('keeps at least one path even when it alone passes the byte budget', () => {
    expect(retainGlobPaths(['a-very-long-path', 'b'], 10, 4)).toEqual({ items: ['a-very-long-path'], kept: 1, total: 2, truncated: true })
  })
})

describe('glob through the registry with a fake executor', () => {
  it('lists newest first, relative to the session cwd, from the search root', async () => {
    const { bash, glob } = await harnessWith(() => ({ stdout: statRecords(['100', 'old.ts'], ['300', 'new.ts'], ['200', 'mid.ts']) }))
    const result = await glob({ pattern: '*.ts', path: 'src' })
    expect(result).toMatchObject({ isError: false, content: 'src/new.ts\nsrc/mid.ts\nsrc/old.ts' })
    expect(bash.searches().at(-1)).toMatch(/^\[ -d \.\/src \] .*\ncd -- \.\/src \|\| exit 3\n/)
    expect(bash.requests.at(-1)).toMatchObject({ workdir: '/work/repo', onStdoutOverflow: 'kill' })
    expect(result.value).toEqual({ paths: ['src/new.ts', 'src/mid.ts', 'src/old.ts'], total: 3, truncated: false, incomplete: [] })
  })

  it('says "No files found" for an empty listing', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 1 }))
    expect(await glob({ pattern: '*.none' })).toMatchObject({ isError: false, content: 'No files found' })
  })

  it('caps the page, names the full sorted result, and saves every path', async () => {
    const store = new MemorySpill()
    const { glob } = await harnessWith(() => ({ stdout: statRecords(['1', 'a'], ['2', 'b'], ['3', 'c']) }), { globMaxResults: 2 }, store)
    const result = await glob({ pattern: '*' })
    expect(result.content).toBe(
      'c\nb\n\n(Showing 2 of 3 paths, newest first. Full sorted result stored at: /spill/sess-1/0001-glob-results.txt. Use read with offset/limit, or grep this path to search within it.)',
    )
    expect(result.spilledTo).toBe('/spill/sess-1/0001-glob-results.txt')
    expect(store.saved[0]).toEqual({ owner: 'sess-1', source: { toolName: 'glob', callId: 'call-9', label: 'result' }, filename: 'glob-results.txt', text: 'c\nb\na\n' })
  })

  it('keeps the matches of an exit 2 and reports the listing incomplete', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 2, stdout: statRecords(['1', 'ok.ts']), stderr: 'rg: ./locked: Permission denied (os error 13)\n' }))
    expect((await glob({ pattern: '*.ts' })).content).toBe(
      'ok.ts\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
  })

  it('fails when the root itself cannot be read, and keeps a listing that found files anyway', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 2, stderr: 'rg: ./: Permission denied (os error 13)\n' }))
    expect(await glob({ pattern: '*', path: 'xonly' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content: 'glob cannot read xonly: rg: ./: Permission denied (os error 13)' })
    const partial = await harnessWith(() => ({ exitCode: 2, stdout: statRecords(['1', 'a']), stderr: 'rg: .: Permission denied (os error 13)\n', stderrTruncated: true }))
    expect((await partial.glob({ pattern: '*' })).content).toBe(
      'a\n\n(Search incomplete: rg could not read at least 1 path, so results from them are missing: .: Permission denied (os error 13).)',
    )
  })

  it('does not take an unreadable path named like an rg error for a pattern error', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 2, stdout: statRecords(['1', 'ok']), stderr: 'rg: ./the literal: Permission denied (os error 13)\n' }))
    expect(await glob({ pattern: '*' })).toMatchObject({ isError: false })
  })

  it.each([
    [{ exitCode: 2, stderr: "rg: error parsing glob '{a': unclosed alternate group\n" }, 'SEARCH_INVALID_PATTERN', /^glob pattern rejected by rg: rg: error parsing glob/],
    [{ exitCode: 2, stderr: 'odd\n' }, 'SEARCH_FAILED', /^glob failed: rg exited with status 2\. odd$/],
    [{ exitCode: 4 }, 'SEARCH_FAILED', /^glob cannot search nope: no such file or directory \(or a directory above it cannot be entered\)\. Check the path\.$/],
    [{ exitCode: 125 }, 'SEARCH_FAILED', /^glob needs GNU find/],
    [{ exitCode: null, signal: 'SIGKILL' }, 'SEARCH_FAILED', /^glob failed: rg exited with status signal SIGKILL\./],
    [{ stdout: 'no-tab-here\0' }, 'SEARCH_FAILED', /^glob could not parse the file listing near "no-tab-here\\u0000"/],
    [{ stdoutTruncated: true }, 'SEARCH_RAW_OUTPUT_OVERFLOW', /^glob stopped: rg produced more than 20000000 bytes of output\. Narrow the pattern, path and search again\.$/],
  ])('answers %j with %s', async (scripted, errorCode, content) => {
    const { glob } = await harnessWith(() => scripted)
    const result = await glob({ pattern: '*', path: 'nope' })
    expect(result).toMatchObject({ isError: true, errorCode })
    expect(result.content).toMatch(content)
  })

  it('presents a pending call as a search card', async () => {
    const { glob } = await harnessWith(() => ({}))
    await glob({ pattern: '*' })
    const tool = (await loadHarness({ plugins: [toolFsSearch], services: { bash: new FakeBash() } })).registry
    expect(tool.get('glob')?.presentCall?.({ pattern: '*.ts' })).toEqual({ card: 'generic', kind: 'search', title: 'glob *.ts' })
    expect(tool.get('glob')?.presentCall?.({ pattern: '*.ts', path: 'src' })).toEqual({ card: 'generic', kind: 'search', title: 'glob *.ts', detail: 'src' })
    expect(tool.get('grep')?.presentCall?.({ pattern: 'x' })).toEqual({ card: 'generic', kind: 'search', title: 'grep x' })
    expect(tool.get('grep')?.presentCall?.({ pattern: 'x', path: 'a' })).toMatchObject({ detail: 'a' })
  })
})

describe('argument validation', () => {
  it.each([
    ['glob', { pattern: '  ' }, 'pattern: pattern must not be blank'],
    ['glob', { pattern: '!*.ts' }, 'pattern: pattern must not start with "!"'],
    ['glob', { pattern: 'a\0b' }, 'pattern: pattern must not contain a NUL character'],
    ['glob', { pattern: 'x'.repeat(5000) }, 'pattern: pattern is longer than 4096 characters'],
    ['glob', { pattern: '*', extra: 1 }, 'Unrecognized key: "extra"'],
    ['grep', { pattern: 'x', include: 'a,b' }, 'include: include must be one glob, not a comma-separated list'],
    ['grep', { pattern: 'x', include: '!*.js' }, 'include: include must be one positive glob'],
    ['grep', { pattern: 'x', path: '' }, 'path: path must not be blank'],
    ['grep', { pattern: '' }, 'pattern: pattern must not be empty'],
    ['grep', { pattern: 'x', include: 'packages/*/**' }, 'include "packages/*/**" ends in "**", so rg would also search the ignored directories it matches; name the files (e.g. "packages/*/**/*.ts")'],
    ['grep', { pattern: 'x', include: '**/src/**/*' }, 'ends in "**"'],
    ['grep', { pattern: 'x', include: '/abs/*.ts' }, 'include is matched under the search path, so it must be relative'],
    ['grep', { pattern: 'x', include: './../x/*.ts' }, 'include must not contain ".."'],
    ['glob', { pattern: '**/../x' }, 'pattern may use ".." only before its first wildcard'],
    ['grep', { pattern: 'x'.repeat(9000) }, 'pattern: pattern is longer than 8192 characters'],
    ['grep', { pattern: 42 }, 'pattern: Invalid input: expected string'],
  ])('%s rejects %j as an argument error', async (tool, args, message) => {
    const { bash, glob } = await harnessWith(() => ({}))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    const result = tool === 'glob' ? await glob(args) : await harness.registry.execute('grep', args)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain(message)
    expect(bash.searches()).toEqual([])
  })

  it('accepts a whitespace pattern, and includes that narrow or filter files', async () => {
    const { bash } = await harnessWith(() => ({ exitCode: 1, stdout: 'D\0' }))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    for (const args of [{ pattern: '  ' }, { pattern: '\t' }, { pattern: 'x', include: 'src/**' }, { pattern: 'x', include: '.git/**' }, { pattern: 'x', include: 'a/*' }, { pattern: 'x', include: '**' }]) {
      expect(await harness.registry.execute('grep', args)).toMatchObject({ isError: false })
    }
  })

  it('accepts commas inside braces and unbalanced closing braces', async () => {
    const { bash } = await harnessWith(() => ({ exitCode: 1, stdout: 'D\0' }))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    expect(await harness.registry.execute('grep', { pattern: 'x', include: '*.{ts,tsx}' })).toMatchObject({ isError: false })
    expect(await harness.registry.execute('grep', { pattern: 'x', include: 'a}b' })).toMatchObject({ isError: false })
  })
})

describe('glob under a hostile review', () => {
  const findFailed = "/usr/bin/find: ‘shut/a.ts’: Permission denied\n/usr/bin/find: ‘gone.ts’: No such file or directory\n"

  it('names the files the mtime helper could not stat (exit 7) instead of dropping them', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 7, stdout: statRecords(['1', 'ok.ts']), stderr: findFailed }))
    const result = await glob({ pattern: '**/*.ts' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(
      "ok.ts\n\n(Listing incomplete: 2 files rg listed could not be examined for their modification time, so they are not shown: ‘gone.ts’: No such file or directory; ‘shut/a.ts’: Permission denied.)",
    )
    expect(result.value).toMatchObject({ total: 1, incomplete: ['‘shut/a.ts’: Permission denied', '‘gone.ts’: No such file or directory'] })
  })

  it('says "No files to show", not "No files found", when every listed file failed to stat', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 7, stderr: '/usr/bin/find: ‘x.ts’: Permission denied\n', stderrTruncated: true }))
    expect((await glob({ pattern: '*.ts' })).content).toBe(
      'No files to show\n\n(Listing incomplete: at least 1 file rg listed could not be examined for its modification time, so it is not shown: ‘x.ts’: Permission denied.)',
    )
  })

  it('keeps both notes when rg and the mtime helper each missed something', async () => {
    const stderr = `rg: ./locked: Permission denied (os error 13)\n${findFailed}`
    const { glob } = await harnessWith(() => ({ exitCode: 7, stdout: statRecords(['1', 'ok.ts']), stderr }))
    const { content } = await glob({ pattern: '*.ts' })
    expect(content).toContain('(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)')
    expect(content).toContain('(Listing incomplete: 2 files rg listed')
  })

  it('is incomplete, never complete, when the mtime helper failed without naming a file', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 7, stdout: statRecords(['1', 'ok.ts']), stderr: '' }))
    expect((await glob({ pattern: '*.ts' })).content).toBe(
      'ok.ts\n\n(Listing incomplete: the modification-time helper failed without a message, so files rg listed may be missing.)',
    )
  })

  it('is incomplete when rg exits 2 with a listing and an error it does not tie to a path', async () => {
    const { glob } = await harnessWith(() => ({ exitCode: 2, stdout: statRecords(['1', 'ok.ts']), stderr: 'something odd\n' }))
    expect(await glob({ pattern: '*.ts' })).toMatchObject({
      isError: false,
      content: 'ok.ts\n\n(Search incomplete: rg exited with status 2, so some results may be missing; it printed: something odd.)',
    })
  })

  it('notes names that are not valid UTF-8, once per path, in the singular and the plural', async () => {
    const one = await harnessWith(() => ({ stdout: statRecords(['1', 'bad\ufffd.ts'], ['2', 'ok.ts']) }))
    expect((await one.glob({ pattern: '*.ts' })).content).toBe('ok.ts\nbad\ufffd.ts\n\n(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)')
    const two = await harnessWith(() => ({ stdout: statRecords(['1', 'a\ufffd'], ['2', 'b\ufffd']) }))
    expect((await two.glob({ pattern: '*' })).content).toContain('(2 paths contain U+FFFD')
  })

  it('escapes every control character in a path, DEL and C1 included', async () => {
    const { glob } = await harnessWith(() => ({ stdout: statRecords(['1', 'a\u001b[2J\rb\u007fc\u009bd']) }))
    expect((await glob({ pattern: '*' })).content).toBe('"a\\u001b[2J\\rb\\u007fc\\u009bd"')
  })

  it.each([
    [{ exitCode: 4 }, 'glob cannot search "gone\\nname": no such file or directory (or a directory above it cannot be entered). Check the path.'],
    [{ exitCode: 5 }, 'glob searches directories, but "gone\\nname" is a file. Pass its directory as path, or grep the file.'],
    [
      { exitCode: 3, stderr: 'dash: 1: cd: can\'t cd to ./gone' },
      "glob cannot search \"gone\\nname\": the directory exists but cannot be entered (permission denied for the executor's user). dash: 1: cd: can't cd to ./gone",
    ],
  ])('names the real cause for %j', async (scripted, content) => {
    const { glob } = await harnessWith(() => scripted)
    expect(await glob({ pattern: '*', path: 'gone\nname' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })

  it('runs the mtime helpers the probe resolved, by absolute path', async () => {
    const { bash, glob } = await harnessWith(() => ({}))
    await glob({ pattern: '*' })
    expect(bash.searches().at(-1)).toContain("| { /usr/bin/find -files0-from - -maxdepth 0 -printf '%T@\\t%p\\0'; echo \"h$?\" >&3; }")
  })

  it('saves no spill when the call was aborted while rg was finishing', async () => {
    const store = new MemorySpill()
    const bash = new FakeBash((_command, spec) =>
      new Promise<Scripted>((resolve) => spec.signal?.addEventListener('abort', () => resolve({ stdout: statRecords(['1', 'a'], ['2', 'b'], ['3', 'c']) }))),
    )
    const controller = new AbortController()
    const ctx = { bash, rg: '/opt/rg', lister: { helper: 'find', find: '/usr/bin/find' } as const, config: Config.parse({ globMaxResults: 1 }), spillStore: () => store, access: () => undefined }
    const pending = executeGlob(ctx, { pattern: '*' }, { signal: controller.signal, name: 'glob', callId: 'c', agent })
    setTimeout(() => controller.abort(), 10)
    await expect(pending).rejects.toMatchObject({ code: 'SEARCH_ABORTED', message: 'glob was cancelled before rg finished; no result was produced.' })
    expect(store.saved).toEqual([])
  })
})
