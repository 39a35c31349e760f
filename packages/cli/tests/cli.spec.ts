import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { EXIT } from '@dsh/cli'
import { formatToolList } from '../src/cli.js'
import { writeBlockingRg } from '../../../test-support/blocking-rg.js'
import { budgetMs, dsh, processesMentioning, scratchDir, tempDir, waitUntil, writeTree } from './io.js'

const tree = scratchDir('tree')
const spill = scratchDir('spill')
const configs = scratchDir('configs')
beforeAll(() => {
  writeTree(tree, {
    'a.txt': 'needle one\n',
    'c.txt': 'needle three\n',
    'sub/b.txt': 'needle two\n',
    'sub/d.md': 'needle four\n',
    'dash.txt': '-foo here\n',
  })
  mkdirSync(join(tree, 'empty'))
})

/** Writes a config file and returns its path. */
function configFile(name: string, text: string): string {
  const file = join(configs, name)
  writeFileSync(file, text)
  return file
}

/** A `dsh` run in the tree whose capped results land in the test's spill dir. */
function run(argv: readonly string[]) {
  return dsh(['--spill-dir', spill, ...argv], tree)
}

const ALL_MATCHES =
  'Found 4 matches\n\na.txt\nLine 1: needle one\n\nc.txt\nLine 1: needle three\n\nsub/b.txt\nLine 1: needle two\n\nsub/d.md\nLine 1: needle four\n'

describe('dsh commands', () => {
  it('--help lists every registered tool as a command, and the built-ins', async () => {
    const result = await dsh(['--help'], tree)
    expect(result).toMatchObject({ code: EXIT.ok, stderr: '' })
    expect(result.stdout).toMatch(/\n {2}dsh glob PATTERN \[PATH\] +Find files by name/)
    expect(result.stdout).toMatch(/\n {2}dsh grep PATTERN \[PATH\] \[--include INCLUDE\] +Search file contents/)
    expect(result.stdout).toMatch(/\n {2}dsh read PATH \[--offset N\] \[--limit N\] +/)
    expect(result.stdout).toMatch(/\n {2}dsh tools +list the tools/)
    expect(result.stdout).toMatch(/\n {2}dsh mcp \[--upstream FILE\] \[--http HOST:PORT\] +serve the tools/)
  })

  it.each([
    ['grep', /^Usage: dsh grep PATTERN \[PATH\] \[--include INCLUDE\]\n\nSearch file contents[^]*\n {2}--include INCLUDE {2}\(optional\) /],
    ['glob', /^Usage: dsh glob PATTERN \[PATH\]\n\nFind files by name/],
    ['read', /^Usage: dsh read PATH \[--offset N\] \[--limit N\]\n\n/],
    ['tools', /^Usage: dsh tools\n/],
    ['mcp', /^Usage: dsh mcp \[--upstream FILE\] \[--http HOST:PORT\]\n/],
  ])('%s --help describes that command', async (command, text) => {
    const result = await dsh([command, '--help'], tree)
    expect(result).toMatchObject({ code: EXIT.ok, stderr: '' })
    expect(result.stdout).toMatch(text)
  })

  it('--version prints the version it was given', async () => {
    expect(await dsh(['--version'], tree)).toEqual({ code: 0, stdout: '9.9.9-test\n', stderr: '' })
  })

  it('grep PATTERN prints exactly the model-facing text', async () => {
    expect(await run(['grep', 'needle'])).toEqual({ code: 0, stdout: ALL_MATCHES, stderr: '' })
  })

  it('grep PATTERN PATH --include narrows to the path and the glob', async () => {
    expect(await run(['grep', 'needle', 'sub', '--include', '*.md'])).toEqual({
      code: 0,
      stdout: 'Found 1 match\n\nsub/d.md\nLine 1: needle four\n',
      stderr: '',
    })
  })

  it('glob PATTERN PATH lists files under the path', async () => {
    const result = await run(['glob', '*.txt', 'sub'])
    expect(result).toEqual({ code: 0, stdout: 'sub/b.txt\n', stderr: '' })
  })

  it('no match prints the page and exits 1, as rg does', async () => {
    expect(await run(['grep', 'absent'])).toEqual({ code: EXIT.nothingFound, stdout: 'No matches found\n', stderr: '' })
    expect(await run(['glob', '*.absent'])).toEqual({ code: EXIT.nothingFound, stdout: 'No files found\n', stderr: '' })
    expect(await run(['grep', 'absent', '--format', 'lines'])).toEqual({ code: EXIT.nothingFound, stdout: '', stderr: '' })
    const json = await run(['glob', '*.absent', '--format', 'json'])
    expect(json.code).toBe(EXIT.nothingFound)
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: false, content: 'No files found', view: { total: 0 } })
  })

  it('a tool error prints its text on stderr and exits 2', async () => {
    const result = await run(['grep', 'a('])
    expect(result.code).toBe(EXIT.error)
    expect(result.stderr).toMatch(/^grep pattern or include rejected by rg: .*regex parse error/s)
    expect(result.stdout).toBe('')
  })

  it('a pattern that starts with "-" is searched after "--"', async () => {
    expect(await run(['grep', '--', '-foo'])).toEqual({ code: 0, stdout: 'Found 1 match\n\ndash.txt\nLine 1: -foo here\n', stderr: '' })
  })

  it('a pattern full of shell syntax runs nothing', async () => {
    const result = await run(['grep', '$(touch canary)`touch canary`'])
    expect(result).toEqual({ code: EXIT.nothingFound, stdout: 'No matches found\n', stderr: '' })
    expect(existsSync(join(tree, 'canary'))).toBe(false)
  })

  it('tools lists each tool with its flags, schema and prompt sections', async () => {
    const result = await run(['tools'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /^glob \(read-only, concurrency-safe\)\n {2}Find files by name.*\n {2}schema: \{"type":"object".*\n {2}prompt: Use glob /,
    )
    expect(result.stdout).toMatch(
      /\n\ngrep \(read-only, concurrency-safe\)\n {2}Search file contents.*\n {2}schema: .*"include".*\n {2}prompt: Use grep .*\n\n/,
    )
    expect(result.stdout).toMatch(/\n\nread \(read-only, concurrency-safe\)\n/)
  })

  it('tools --format json prints the listings as JSON', async () => {
    const result = await run(['tools', '--format', 'json'])
    const listings = JSON.parse(result.stdout) as ToolListing[]
    expect(listings.map((t) => t.name)).toEqual(['glob', 'grep', 'read'])
    expect(listings[1]!.inputSchema).toMatchObject({ type: 'object', required: ['pattern'] })
    expect(listings[1]!.promptSections.map((s) => s.id)).toEqual(['tool-fs-search/grep'])
  })
})

describe('--format json', () => {
  it('prints {isError, content, meta, view} for a success', async () => {
    const result = await run(['grep', 'needle', '--format', 'json'])
    const printed = JSON.parse(result.stdout) as Record<string, unknown>
    expect(result.code).toBe(0)
    expect(Object.keys(printed)).toEqual(['isError', 'content', 'meta', 'view'])
    expect(printed).toMatchObject({ isError: false, content: ALL_MATCHES.trimEnd() })
    expect(result.stdout.endsWith('}\n')).toBe(true)
  })

  it('carries the search card: the meta grep projected and the view built from it', async () => {
    const printed = JSON.parse((await run(['grep', 'needle', 'sub', '--format', 'json'])).stdout) as Record<string, unknown>
    const files = [
      { path: 'sub/b.txt', matches: [{ lineNumber: 1, line: 'needle two' }] },
      { path: 'sub/d.md', matches: [{ lineNumber: 1, line: 'needle four' }] },
    ]
    expect(printed.meta).toEqual({ shape: 'matches', files, truncated: false, total: 2, incomplete: false })
    expect(printed.view).toEqual({ card: 'search', shape: 'matches', files, truncated: false, total: 2, incomplete: false })
    const globbed = JSON.parse((await run(['glob', '*.md', 'sub', '--format', 'json'])).stdout) as Record<string, unknown>
    expect(globbed.view).toEqual({ card: 'search', shape: 'paths', paths: ['sub/d.md'], truncated: false, total: 1, incomplete: false })
  })

  it('has no view for a tool without a card', async () => {
    expect(JSON.parse((await run(['read', 'a.txt', '--format', 'json'])).stdout)).toMatchObject({ isError: false, view: null })
  })

  it('prints {isError, content, meta, view} for a tool error and exits 2', async () => {
    const result = await run(['glob', '*', 'missing', '--format', 'json'])
    const printed = JSON.parse(result.stdout) as Record<string, unknown>
    expect(result.code).toBe(EXIT.error)
    expect(Object.keys(printed)).toEqual(['isError', 'errorCode', 'content', 'meta', 'view'])
    expect(printed).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(printed.content).toMatch(/^glob cannot search missing/)
  })

  it.each([
    [['grep', 'a('], 'SEARCH_INVALID_PATTERN'],
    [['grep', 'x', '--include', 'a,b'], 'TOOL_INVALID_ARGUMENTS'],
    [['read', 'absent.txt'], 'FS_NOT_FOUND'],
    [['read', 'sub'], 'FS_IS_DIRECTORY'],
    [['read', 'a.txt', '--offset', '9'], 'FS_OFFSET_PAST_END'],
  ])('%j carries its errorCode', async (argv, code) => {
    const result = await run([...argv, '--format', 'json'])
    expect(result.code).toBe(EXIT.error)
    expect(JSON.parse(result.stdout)).toMatchObject({ isError: true, errorCode: code })
  })
})

describe('usage errors exit 2 with a clear message', () => {
  it.each([
    [['frob'], 'unknown command "frob"', 'dsh'],
    [['--include', '*.ts', 'grep', 'x'], '--include must follow the command', 'dsh *.ts'],
    [['grep'], 'grep takes PATTERN [PATH]', 'dsh grep'],
    [['grep', 'a', 'b', 'c'], 'grep takes PATTERN [PATH]', 'dsh grep'],
    [['grep', 'x', '--format', 'xml'], '--format must be text, json, lines or html, not "xml"', 'dsh'],
    [['grep', 'x', '--color=sometimes'], '--color must be auto, always or never, not "sometimes"', 'dsh'],
    [['tools', '--format', 'html'], '--format html shows a tool call, not the tool list', 'dsh tools'],
    [['tool-search', 'slack', '--format', 'html'], "--format html shows a tool call, not tool_search's matches", 'dsh tool-search'],
    [['grep', 'x', '--nope'], 'unknown option --nope', 'dsh grep'],
    [['glob', '*', '--include', '*.ts'], 'unknown option --include', 'dsh glob'],
    [['read', 'a.txt', '--offset', 'two'], '--offset must be a number, not "two"', 'dsh read'],
    [['read'], 'read takes PATH', 'dsh read'],
    [['tools', 'extra'], 'tools takes no arguments', 'dsh tools'],
    [['mcp', '--nope'], 'unknown option --nope', 'dsh mcp'],
    [['grep', '-xv', 'foo'], 'unknown option -x', 'dsh grep'],
    [['grep', '-f/proc/self/environ', 'foo', '--format', 'json'], 'unknown option -f', 'dsh grep'],
    [['grep', '-v', 'foo'], 'unknown option -v', 'dsh grep'],
    [['read', 'a.txt', '--format', 'lines', '-0'], '-0 (--null) ends paths, and read prints none', 'dsh read'],
    [[], 'no command given', 'dsh'],
  ])('%j', async (argv, message, help) => {
    const result = await dsh(argv, tree)
    expect(result).toMatchObject({ code: EXIT.usage, stdout: '' })
    expect(result.stderr.startsWith(`dsh: ${message}`)).toBe(true)
    expect(result.stderr.endsWith(`\nRun ${help} --help for usage.\n`)).toBe(true)
  })

  it.each([
    [['gerp', 'x'], 'unknown command "gerp"; did you mean grep?'],
    [['grep', 'x', '--includ', '*.ts'], 'unknown option --includ; did you mean --include?'],
    [['grep', 'x', '--fromat=json'], 'unknown option --fromat; did you mean --format?'],
    [['--fromat', 'json', 'grep', 'x'], 'unknown option --fromat; did you mean --format?'],
  ])('a typo in %j gets one line naming what was meant', async (argv, message) => {
    expect(await dsh(argv, tree)).toEqual({ code: EXIT.usage, stdout: '', stderr: `dsh: ${message}\n` })
  })

  it('an argument the tool rejects is a tool error, not a usage error', async () => {
    const result = await run(['grep', 'x', '--include', 'a,b'])
    expect(result.code).toBe(EXIT.error)
    expect(result.stderr).toMatch(/^invalid arguments for grep: include: include must be one glob/)
  })
})

describe('--cwd', () => {
  it('resolves a relative --cwd against the process cwd and shows paths relative to it', async () => {
    expect(await run(['grep', 'needle', '--cwd', 'sub'])).toEqual({
      code: 0,
      stdout: 'Found 2 matches\n\nb.txt\nLine 1: needle two\n\nd.md\nLine 1: needle four\n',
      stderr: '',
    })
  })

  it('rejects a missing --cwd with exit 2', async () => {
    const result = await run(['grep', 'needle', '--cwd', 'nowhere'])
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `dsh: --cwd ${join(tree, 'nowhere')} is not a directory\nRun dsh --help for usage.\n`,
    })
  })

  it('rejects a file as --cwd with exit 2', async () => {
    expect((await run(['glob', '*', '--cwd', 'a.txt'])).code).toBe(2)
  })
})

describe('a search stopped by its timeout (docs/design.md#a-timeout-returns-what-was-found)', () => {
  // An rg that prints its matches and never finishes, so the configured timeout always fires.
  let stopped: string
  beforeAll(async () => {
    const rg = writeBlockingRg(tempDir('blocking-rg'), (await import('@vscode/ripgrep')).rgPath)
    stopped = configFile('stopped.json', JSON.stringify({ 'tool-fs-search': { rgPath: rg, timeoutMs: 300 } }))
  })
  // How much rg printed in 0.3 s depends on the machine; that it is a partial result does not.
  const note = /\(Stopped after 0\.3 s, the search's time limit: partial result, [^\n]* so far; [^\n]*, or raise timeoutMs\.\)\n$/

  it('prints the partial page with its note and exits 0, as for a capped result', async () => {
    const result = await run(['grep', 'needle', '--config', stopped])
    expect(result).toMatchObject({ code: EXIT.ok, stderr: '' })
    expect(result.stdout).toMatch(note)
  })

  it('prints what was found in lines, the timeout among the notes on stderr, and exits 0', async () => {
    const result = await run(['grep', 'needle', '--format', 'lines', '--config', stopped])
    expect(result.code).toBe(EXIT.ok)
    expect(result.stderr).toMatch(
      /^dsh: incomplete: stopped after 0\.3 s \(timeoutMs\) before rg finished: what it had not yet printed is missing\n/,
    )
  })

  it('exits 2 when it found nothing before it stopped: absence is not established (docs/design.md#the-exit-status-says-what-was-found)', async () => {
    const result = await run(['grep', 'absent', '--config', stopped])
    expect(result).toMatchObject({ code: EXIT.error, stderr: '' })
    expect(result.stdout).toMatch(/No matches found so far/)
    expect((await run(['glob', '*.absent', '--format', 'lines', '--config', stopped])).code).toBe(EXIT.error)
  })

  it('prints a result whose view says it is incomplete in json', async () => {
    const printed = JSON.parse((await run(['glob', '*.txt', '--format', 'json', '--config', stopped])).stdout) as Record<string, unknown>
    expect(printed).toMatchObject({ isError: false, view: { card: 'search', shape: 'paths', incomplete: true } })
  })
})

describe('--config', () => {
  it('applies a valid config: a capped page names its spill file', async () => {
    const file = configFile('capped.json', JSON.stringify({ 'tool-fs-search': { grepMaxMatches: 2 } }))
    const result = await run(['grep', 'needle', '--config', file])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /^Found 2 of 4 matches\n\na\.txt\nLine 1: needle one\n\nc\.txt\nLine 1: needle three\n\n\(Full grep result stored at: /,
    )
  })

  it('reads a config path relative to the process cwd', async () => {
    writeFileSync(join(tree, 'empty', 'dsh.json'), '{}')
    expect((await dsh(['glob', '*.json', '--config', 'dsh.json'], join(tree, 'empty'))).stdout).toBe('dsh.json\n')
  })

  it('warns on stderr when the configured rg is not runnable and another is used', async () => {
    const file = configFile('rg.json', JSON.stringify({ 'tool-fs-search': { rgPath: '/nonexistent/rg' } }))
    const result = await run(['grep', 'needle', 'sub/b.txt', '--config', file])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('Found 1 match\n\nsub/b.txt\nLine 1: needle two\n')
    expect(result.stderr).toMatch(/^dsh: warning: tool-fs-search: using \S+; not runnable in the executor: \/nonexistent\/rg\n$/)
  })

  it.each([
    ['a missing file', () => join(configs, 'missing.json'), /^dsh: cannot read config .*missing\.json: ENOENT/],
    ['invalid JSON', () => configFile('bad.json', '{"tool-fs-search": '), /^dsh: cannot read config .*bad\.json: .*JSON/],
    ['a JSON array', () => configFile('array.json', '[]'), /^dsh: config .*array\.json must be a JSON object keyed by plugin name\n/],
    ['JSON null', () => configFile('null.json', 'null'), /must be a JSON object keyed by plugin name/],
    ['a JSON number', () => configFile('number.json', '5'), /must be a JSON object keyed by plugin name/],
  ])('rejects %s with exit 2', async (_what, file, message) => {
    const result = await run(['grep', 'needle', '--config', file()])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(message)
  })

  it('rejects an unreadable config file with exit 2', async () => {
    // Root reads any file; a directory in its place fails to read for everyone.
    const result = await run(['grep', 'needle', '--config', configs])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^dsh: cannot read config .*EISDIR/)
  })

  it('rejects a key that names no plugin, naming it', async () => {
    const result = await run(['grep', 'needle', '--config', configFile('unknown.json', '{"tool-fs-serch": {}}')])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /^dsh: config names tool-fs-serch, which is not a loaded plugin \(loaded: bash-local, spill-local, fs-local, access, index-local, tool-fs-search, tool-fs, mcp\)\n$/,
    )
  })

  it('rejects a bad value, naming the plugin and the field', async () => {
    const result = await run(['grep', 'needle', '--config', configFile('value.json', '{"tool-fs-search": {"grepMaxMatches": 0}}')])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^dsh: plugin tool-fs-search: invalid config: grepMaxMatches: /)
  })
})

describe('--spill-dir and --session', () => {
  const capped = (): string => configFile('glob-capped.json', JSON.stringify({ 'tool-fs-search': { globMaxResults: 1 } }))

  it('a capped result is saved under --spill-dir, owned by the default session "cli"', async () => {
    const result = await run(['glob', '*.txt', '--config', capped()])
    const locator = /stored at: (\S+)\. Use read/.exec(result.stdout)?.[1]
    expect(locator?.startsWith(join(spill, 'cli') + '/')).toBe(true)
    expect(readFileSync(locator!, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['a.txt', 'c.txt', 'dash.txt', 'sub/b.txt'])
  })

  it('--session names the owner directory of the spilled file', async () => {
    const result = await run(['glob', '*.txt', '--config', capped(), '--session', 'sess-42'])
    const locator = /stored at: (\S+)\. Use read/.exec(result.stdout)?.[1]
    expect(locator?.startsWith(join(spill, 'sess-42') + '/')).toBe(true)
    expect(readdirSync(join(spill, 'sess-42')).filter((name) => !name.startsWith('.'))).toHaveLength(1)
  })

  it('--spill-dir overrides the root from the config file and keeps its other fields', async () => {
    const elsewhere = join(configs, 'elsewhere')
    const file = configFile(
      'spill.json',
      JSON.stringify({ 'tool-fs-search': { globMaxResults: 1 }, 'spill-local': { root: elsewhere, maxAgeMs: 60_000 } }),
    )
    const result = await run(['glob', '*.txt', '--config', file, '--session', 'override'])
    expect(result.stdout).toContain(`stored at: ${join(spill, 'override')}/`)
    expect(existsSync(elsewhere)).toBe(false)
    const invalid = configFile('spill-bad.json', JSON.stringify({ 'spill-local': { root: elsewhere, maxAgeMs: -1 } }))
    expect((await run(['glob', '*', '--config', invalid])).stderr).toMatch(/^dsh: plugin spill-local: invalid config: maxAgeMs: /)
  })
})

describe('cancellation', () => {
  it('SIGINT during a search cancels it: exit 130, and the handler is removed', async () => {
    // rg blocks opening a FIFO nobody writes to, so the search runs until it is cancelled.
    const fifo = join(configs, 'fifo')
    execFileSync('mkfifo', [fifo])
    const before = process.listeners('SIGINT')
    const pending = run(['grep', 'needle', fifo, '--root', configs])
    const added = process.listeners('SIGINT').find((l) => !before.includes(l))
    expect(added).toBeDefined()
    // Cancel the search itself, not the load before it: rg is blocked on the FIFO.
    expect(await waitUntil(() => processesMentioning(fifo).length > 0, 10_000)).toBe(true)
    // Call the handler runCli installed rather than signal the test runner's own process.
    added!('SIGINT')
    const result = await pending
    expect(result.code).toBe(EXIT.interrupted)
    expect(result.stderr).toMatch(/cancelled/)
    expect(process.listeners('SIGINT')).toEqual(before)
    expect(await waitUntil(() => processesMentioning(fifo).length === 0, 2000)).toBe(true)
  })

  it('a finished search removes its SIGINT handler', async () => {
    const before = process.listeners('SIGINT').length
    await run(['grep', 'needle'])
    expect(process.listeners('SIGINT')).toHaveLength(before)
  })
})

describe('runCli', () => {
  it('lets an unexpected error escape rather than call it a usage error', async () => {
    await expect(dsh(['tools'], tree, { cwd: 42 as unknown as string })).rejects.toThrow(TypeError)
  })
})

describe('formatToolList', () => {
  it('says so when no tool is registered', () => {
    expect(formatToolList([])).toBe('No tools are registered.\n')
  })

  it('omits the flag list for a tool that is neither read-only nor concurrency-safe', () => {
    const tool: ToolListing = {
      name: 'write',
      description: 'Writes.',
      inputSchema: { type: 'object' },
      isReadOnly: false,
      isConcurrencySafe: false,
      shouldDefer: false,
      alwaysLoad: false,
      isMcp: false,
      usesWorkspace: true,
      promptSections: [],
    }
    expect(formatToolList([tool, { ...tool, name: 'read', isReadOnly: true }])).toBe(
      'write\n  Writes.\n  schema: {"type":"object"}\n\nread (read-only)\n  Writes.\n  schema: {"type":"object"}\n',
    )
  })
})

describe('--format lines', () => {
  it('glob prints every path, one a line, and nothing else', async () => {
    const result = await run(['glob', '*.txt', 'sub', '--format', 'lines'])
    expect(result).toEqual({ code: 0, stdout: 'sub/b.txt\n', stderr: '' })
  })

  it('glob prints every path, not only the page: the caps are for a model', async () => {
    const file = configFile('lines-capped.json', JSON.stringify({ 'tool-fs-search': { globMaxResults: 1 } }))
    const result = await run(['glob', '*.txt', '-0', '--config', file])
    expect(result.code).toBe(0)
    expect(result.stdout.split('\0').sort()).toEqual(['', 'a.txt', 'c.txt', 'dash.txt', 'sub/b.txt'])
    expect(result.stderr).toBe('')
  })

  it('grep prints path:line:text, or a NUL after the path with -0', async () => {
    expect(await run(['grep', 'needle', 'sub', '--format', 'lines'])).toEqual({
      code: 0,
      stdout: 'sub/b.txt:1:needle two\nsub/d.md:1:needle four\n',
      stderr: '',
    })
    expect((await run(['grep', 'needle', 'sub', '--format=lines', '--null'])).stdout).toBe(
      'sub/b.txt\x001:needle two\nsub/d.md\x001:needle four\n',
    )
  })

  it('read prints the raw lines, and says on stderr where the file continues', async () => {
    writeTree(tree, { 'five.txt': 'one\n\ttwo\nthree\nfour\nfive\n' })
    expect(await run(['read', 'five.txt', '--format', 'lines'])).toEqual({ code: 0, stdout: 'one\n\ttwo\nthree\nfour\nfive\n', stderr: '' })
    expect(await run(['read', 'five.txt', '--offset', '2', '--limit', '2', '--format', 'lines'])).toEqual({
      code: 0,
      stdout: '\ttwo\nthree\n',
      stderr: `dsh: ${join(tree, 'five.txt')} continues: read on with --offset 4\n`,
    })
  })

  it('tools prints the names, one a line or NUL-ended', async () => {
    expect(await run(['tools', '--format', 'lines'])).toEqual({ code: 0, stdout: 'glob\ngrep\nread\n', stderr: '' })
    expect((await run(['tools', '-0'])).stdout).toBe('glob\0grep\0read\0')
  })

  it('a failure goes to stderr, as in text', async () => {
    expect(await run(['read', 'absent.txt', '--format', 'lines'])).toEqual({
      code: EXIT.error,
      stdout: '',
      stderr: expect.stringMatching(/absent\.txt/),
    })
  })
})

describe('read', () => {
  /** The text of a read page's numbered lines, without numbers or footer. */
  const unnumbered = (page: string): string[] =>
    page
      .split('\n')
      .filter((line) => /^ *\d+\t/.test(line))
      .map((line) => line.replace(/^ *\d+\t/, ''))

  it('prints a file numbered like cat -n', async () => {
    expect(await run(['read', 'sub/b.txt'])).toEqual({ code: 0, stdout: '     1\tneedle two\n', stderr: '' })
  })

  it('pages with --offset and --limit, saying where to read on', async () => {
    writeTree(tree, { 'ten.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('') })
    const result = await run(['read', 'ten.txt', '--offset', '3', '--limit', '2'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^ {5}3\tline 3\n {5}4\tline 4\n\n.*offset=5/s)
  })

  it('reads back the whole result a capped grep spilled, at the locator its footer names', async () => {
    writeTree(tree, { 'many/m.txt': Array.from({ length: 20 }, (_, i) => `hit ${i}\n`).join('') })
    const file = configFile('caps.json', JSON.stringify({ 'tool-fs-search': { grepMaxMatches: 3, globMaxResults: 3 } }))
    const grep = await run(['grep', 'hit', 'many', '--config', file])
    expect(grep.stdout).toMatch(/^Found 3 of 20 matches/)
    const locator = /stored at: (\S+)\. Use read/.exec(grep.stdout)![1]!
    const read = await run(['read', locator])
    expect(read.code).toBe(0)
    expect(unnumbered(read.stdout)).toEqual(readFileSync(locator, 'utf8').trimEnd().split('\n'))
    expect(read.stdout).toContain('Line 20: hit 19')
  })

  it('reaches only the session cwd and the spill store, unless --root adds a directory', async () => {
    writeFileSync(join(configs, 'outside.txt'), 'out there\n')
    const outside = join(configs, 'outside.txt')
    expect(await run(['read', outside, '--format', 'json'])).toMatchObject({
      code: EXIT.error,
      stdout: expect.stringContaining('"errorCode":"ACCESS_OUTSIDE_ROOTS"'),
    })
    expect(await run(['read', outside, '--root', configs])).toEqual({ code: 0, stdout: '     1\tout there\n', stderr: '' })
  })

  it('refuses a file the config denies, and names no rule', async () => {
    writeTree(tree, { '.env': 'SECRET=1\n' })
    const result = await run(['read', '.env', '--config', configFile('deny.json', JSON.stringify({ access: { deny: ['**/.env'] } }))])
    expect(result).toEqual({
      code: EXIT.error,
      stdout: '',
      stderr: `${join(tree, '.env')} is excluded by this session's access rules; it cannot be read.\n`,
    })
  })

  it.each(['.', '..', '/'])('with --spill-dir %s, a denied or outside file stays refused; the spill stays readable', async (spillDir) => {
    writeTree(tree, { '.env': 'SECRET=1\n' })
    const deny = configFile('deny-spill.json', JSON.stringify({ access: { deny: ['**/.env'] }, 'tool-fs-search': { globMaxResults: 1 } }))
    const inTree = (argv: readonly string[]) =>
      dsh(['--spill-dir', spillDir, '--session', 'spill-exempt-test', '--config', deny, ...argv], tree)
    expect(await inTree(['read', '.env'])).toMatchObject({ code: EXIT.error, stderr: expect.stringContaining('is excluded') })
    expect(await inTree(['grep', 'SECRET', '.env'])).toMatchObject({ code: EXIT.error, stderr: expect.stringContaining('is excluded') })
    expect((await inTree(['read', join(configs, 'outside.txt')])).code).toBe(EXIT.error)
    // Where the store can write (not "/" for a user who may not), its own result is still read back.
    const glob = await inTree(['glob', '*.txt'])
    const locator = /stored at: (\S+)\. Use read/.exec(glob.stdout)?.[1]
    if (locator !== undefined) {
      expect((await inTree(['read', locator])).code).toBe(EXIT.ok)
      rmSync(join(locator, '..'), { recursive: true, force: true })
    }
  })

  it('reads a file whose name starts with a dash, after "--"', async () => {
    writeTree(tree, { '-rf': 'dashed\n' })
    expect(await run(['read', '--', '-rf'])).toEqual({ code: 0, stdout: '     1\tdashed\n', stderr: '' })
  })
})

describe('mcp', () => {
  /** Runs `dsh mcp` in-process on piped streams: sends `messages`, closes stdin, returns the replies. */
  async function mcpSession(argv: readonly string[], messages: readonly object[]) {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    let replies = ''
    stdout.on('data', (chunk: Buffer) => (replies += chunk.toString()))
    const done = dsh(['--spill-dir', spill, 'mcp', ...argv], tree, { stdio: { stdin, stdout } })
    for (const message of messages) stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    // Let the server answer before its stdin closes.
    const deadline = Date.now() + budgetMs(10_000)
    while (replies.split('\n').filter(Boolean).length < messages.filter((m) => 'id' in m).length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    stdin.end()
    const result = await done
    return {
      ...result,
      replies: replies
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> }),
    }
  }

  const initialize = {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
  }
  const call = (id: number, name: string, args: object) => ({ id, method: 'tools/call', params: { name, arguments: args } })

  it('serves the tools on stdio until stdin closes, then exits 0', async () => {
    const result = await mcpSession(
      ['--cwd', '.'],
      [
        initialize,
        { method: 'notifications/initialized' },
        { id: 2, method: 'tools/list' },
        call(3, 'grep', { pattern: 'needle', path: 'sub' }),
      ],
    )
    expect(result.code).toBe(EXIT.ok)
    expect(result.stdout).toBe('')
    const [, list, grep] = result.replies
    expect((list!.result.tools as { name: string }[]).map((t) => t.name)).toEqual(['glob', 'grep', 'read'])
    expect(grep!.result.content).toEqual([
      { type: 'text', text: 'Found 2 matches\n\nsub/b.txt\nLine 1: needle two\n\nsub/d.md\nLine 1: needle four' },
    ])
  })

  it('runs calls in --cwd when it is given', async () => {
    const result = await mcpSession(
      ['--cwd', 'sub'],
      [initialize, { method: 'notifications/initialized' }, call(2, 'glob', { pattern: '*.md' })],
    )
    expect(result.replies[1]!.result.content).toEqual([{ type: 'text', text: 'd.md' }])
  })
})
