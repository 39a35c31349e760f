// The installed `dsh` as a user runs it: node_modules/.bin/dsh, a real process, its exit status and streams.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { budgetMs, processesMentioning, scratchDir, tempDir, waitUntil, writeTree } from './io.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(repo, 'node_modules', '.bin', 'dsh')
const built = join(repo, 'packages', 'cli', 'dist', 'bin.js')
const { version } = JSON.parse(readFileSync(join(repo, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }

const tree = scratchDir('bin')
const spill = scratchDir('bin-spill')
beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n-foo\n', 'sub/b.txt': 'one needle\ntwo\n' }))

function dshProcess(...argv: string[]) {
  return dshWith({}, ...argv)
}

function dshWith(env: NodeJS.ProcessEnv, ...argv: string[]) {
  expect(existsSync(built), `${built} is missing: run \`npx tsc -b\` before this test`).toBe(true)
  const run = spawnSync(bin, ['--spill-dir', spill, ...argv], {
    cwd: tree,
    encoding: 'utf8',
    timeout: budgetMs(15_000),
    env: { ...process.env, ...env },
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe('node_modules/.bin/dsh', () => {
  it('starts from a small module: the program, zod and the tools in it, loads from the code-cached script', () => {
    const entry = readFileSync(join(repo, 'packages', 'cli', 'dist', 'dsh.mjs'), 'utf8')
    // bin.ts and its daemon modules only (~16 KB); zod bundled here (791 KB with its locales) cost
    // every call that runs in process ~50 ms to compile, beside the program's own copy.
    expect(entry.length).toBeLessThan(64 * 1024)
    expect(entry).not.toContain('ZodError')
    expect(dshProcess('--version').code).toBe(0)
  })

  it('prints the package version', () => {
    expect(dshProcess('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('greps from the process cwd and exits 0', () => {
    expect(dshProcess('grep', 'needle')).toEqual({
      code: 0,
      stdout: 'Found 2 matches\n\na.txt\nLine 1: needle\n\nsub/b.txt\nLine 1: one needle\n',
      stderr: '',
    })
  })

  it('searches a dash-led pattern after "--" and runs no shell syntax', () => {
    expect(dshProcess('grep', '--', '-foo')).toEqual({ code: 0, stdout: 'Found 1 match\n\na.txt\nLine 2: -foo\n', stderr: '' })
    expect(dshProcess('glob', '$(touch canary)')).toEqual({ code: 1, stdout: 'No files found\n', stderr: '' })
    expect(existsSync(join(tree, 'canary'))).toBe(false)
  })

  it('exits as rg does: 1 when nothing matched, 2 on a tool error or a usage error', () => {
    expect(dshProcess('grep', 'absent')).toEqual({ code: 1, stdout: 'No matches found\n', stderr: '' })
    expect(dshProcess('glob', '*.absent', '--format', 'lines')).toEqual({ code: 1, stdout: '', stderr: '' })
    expect(
      spawnSync('sh', ['-c', '"$1" grep absent >/dev/null && echo matched || echo "none $?"', 'sh', bin], { cwd: tree, encoding: 'utf8' })
        .stdout,
    ).toBe('none 1\n')
    const invalid = dshProcess('grep', 'a(', '--format', 'json')
    expect(invalid.code).toBe(2)
    expect(JSON.parse(invalid.stdout)).toMatchObject({ isError: true })
    expect(dshProcess('frob')).toEqual({ code: 2, stdout: '', stderr: 'dsh: unknown command "frob"\nRun dsh --help for usage.\n' })
  })

  /** Runs `dsh argv` on a pseudo-terminal (`script`, from bsdutils), so its stdout is a terminal as in a person's shell. */
  function onTerminal(env: NodeJS.ProcessEnv, ...argv: string[]) {
    expect(existsSync('/usr/bin/script'), 'install bsdutils (script), as .ci/run does').toBe(true)
    const words = [bin, '--spill-dir', spill, ...argv].map((word) => `'${word}'`).join(' ')
    const run = spawnSync('script', ['-qec', words, '/dev/null'], {
      cwd: tree,
      encoding: 'utf8',
      timeout: budgetMs(15_000),
      env: { ...process.env, TERM: 'xterm-256color', ...env },
    })
    // The terminal writes each line feed as CR LF.
    return { code: run.status, stdout: run.stdout.replaceAll('\r\n', '\n') }
  }

  it('colours paths, line numbers and matches on a terminal, as rg does (docs/design.md#colour-only-on-a-terminal)', () => {
    const coloured = 'Found 2 matches\n\n\x1b[35ma.txt\x1b[0m\nLine \x1b[32m1\x1b[0m: \x1b[1;31mneedle\x1b[0m\n\n'
    expect(onTerminal({}, 'grep', 'needle')).toEqual({
      code: 0,
      stdout: `${coloured}\x1b[35msub/b.txt\x1b[0m\nLine \x1b[32m1\x1b[0m: one \x1b[1;31mneedle\x1b[0m\n`,
    })
    expect(onTerminal({}, 'glob', '*.txt', 'sub', '--format', 'lines')).toEqual({ code: 0, stdout: '\x1b[35msub/b.txt\x1b[0m\n' })
  })

  it('prints no colour into a pipe, with NO_COLOR, on a dumb terminal or with --color=never; --color=always colours a pipe', () => {
    const plain = 'a.txt:1:needle\nsub/b.txt:1:one needle\n'
    expect(dshProcess('grep', 'needle', '--format', 'lines')).toEqual({ code: 0, stdout: plain, stderr: '' })
    expect(onTerminal({ NO_COLOR: '1' }, 'grep', 'needle', '--format', 'lines')).toEqual({ code: 0, stdout: plain })
    expect(onTerminal({ TERM: 'dumb' }, 'grep', 'needle', '--format', 'lines')).toEqual({ code: 0, stdout: plain })
    expect(onTerminal({}, 'grep', 'needle', '--format', 'lines', '--color=never')).toEqual({ code: 0, stdout: plain })
    expect(dshWith({ NO_COLOR: '1' }, 'grep', 'needle', 'sub', '--format', 'lines', '--color', 'always')).toEqual({
      code: 0,
      stdout: '\x1b[35msub/b.txt\x1b[0m:\x1b[32m1\x1b[0m:one \x1b[1;31mneedle\x1b[0m\n',
      stderr: '',
    })
    // An error and the notes on stderr are never coloured, nor is JSON.
    expect(dshProcess('grep', 'a(', '--color=always')).toMatchObject({ code: 2, stderr: expect.not.stringContaining('\x1b[') })
    expect(dshProcess('grep', 'needle', '--format', 'json', '--color=always').stdout).not.toContain('\x1b[')
    expect(dshProcess('grep', 'needle', '--color=sometimes')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dsh: --color must be auto, always or never, not "sometimes"\nRun dsh --help for usage.\n',
    })
  })

  it('starts under BusyBox env, which takes no -S: the shebang names node alone', () => {
    expect(existsSync('/bin/busybox'), 'install busybox (apt-get install busybox), as .ci/run does').toBe(true)
    const launcher = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
    // The kernel runs `#!INTERPRETER ARG` as INTERPRETER, then everything after it as one word.
    const [, interpreter, arg] = /^#!(\S+)(?: (.*))?\n/.exec(readFileSync(launcher, 'utf8'))!
    expect(interpreter).toBe('/usr/bin/env')
    const run = spawnSync('/bin/busybox', ['env', ...(arg === undefined ? [] : [arg]), launcher, '--version'], {
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
    })
    expect({ code: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('--format lines prints paths, path:line:text or raw lines, -0 ends paths with NUL, notes go to stderr', () => {
    expect(dshProcess('glob', '*.txt', 'sub', '--format', 'lines')).toEqual({ code: 0, stdout: 'sub/b.txt\n', stderr: '' })
    expect(dshProcess('glob', 'b.txt', 'sub', '-0')).toEqual({ code: 0, stdout: 'sub/b.txt\0', stderr: '' })
    expect(dshProcess('grep', 'needle', '--format', 'lines')).toEqual({
      code: 0,
      stdout: 'a.txt:1:needle\nsub/b.txt:1:one needle\n',
      stderr: '',
    })
    expect(dshProcess('grep', 'needle', 'sub', '--null')).toEqual({ code: 0, stdout: 'sub/b.txt\x001:one needle\n', stderr: '' })
    expect(dshProcess('read', 'sub/b.txt', '--limit', '1', '--format', 'lines')).toEqual({
      code: 0,
      stdout: 'one needle\n',
      stderr: `dsh: ${join(tree, 'sub', 'b.txt')} continues: read on with --offset 2\n`,
    })
  })

  it('prints an error result on stderr with exit 2 in text and lines, and on stdout in json', () => {
    for (const format of ['text', 'lines']) {
      const run = dshProcess('grep', 'a(', '--format', format)
      expect(run).toMatchObject({ code: 2, stdout: '' })
      expect(run.stderr).toMatch(/^grep pattern or include rejected by rg: .*regex parse error/s)
    }
    expect(dshProcess('grep', 'a(', '--format', 'json')).toMatchObject({
      code: 2,
      stdout: expect.stringMatching(/^\{"isError":true/),
      stderr: '',
    })
  })

  it('-V is the version and -v is not', () => {
    expect(dshProcess('-V')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
    expect(dshProcess('-v')).toEqual({ code: 2, stdout: '', stderr: 'dsh: unknown option -v\nRun dsh --help for usage.\n' })
    expect(dshProcess('grep', '-v', 'x')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dsh: unknown option -v\nRun dsh grep --help for usage.\n',
    })
  })

  it('names the option a typo meant, in one line', () => {
    expect(dshProcess('grep', 'needle', '--includ', '*.txt')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dsh: unknown option --includ; did you mean --include?\n',
    })
    expect(dshProcess('--fromat', 'json', 'glob', '*')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dsh: unknown option --fromat; did you mean --format?\n',
    })
  })

  it('without a runnable ripgrep, grep says so, what it tried and how to fix it, and exits 2', () => {
    const config = join(spill, 'no-rg.json')
    writeFileSync(
      config,
      JSON.stringify({ 'tool-fs-search': { rgPath: '/nonexistent/rg' }, 'bash-local': { envSet: { PATH: '/nonexistent' } } }),
    )
    // @vscode/ripgrep picks its platform package by npm_config_arch: naming no platform leaves it without a binary.
    const run = dshWith({ npm_config_arch: 'none' }, 'grep', 'needle', '--config', config)
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(
      /\ngrep is unavailable: ripgrep is not runnable in the bash executor \(tried \/nonexistent\/rg, rg\)\. Install ripgrep \(e\.g\. apt-get install ripgrep\), or set rgPath in the tool-fs-search config to an rg binary\.\n$/,
    )
  })

  it('in a deleted working directory prints one line and exits 2, with no stack trace', () => {
    const gone = tempDir('bin-gone')
    const run = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && exec "$2" --help', 'sh', gone, bin], {
      encoding: 'utf8',
      timeout: budgetMs(15_000),
    })
    expect(run.status).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(
      'dsh: the current directory cannot be read (was it deleted?); cd to another directory: ENOENT: no such file or directory, uv_cwd\n',
    )
  })

  it.each([['--help'], ['grep', 'needle']])('writing %j to a full device prints one line and exits 2', (...argv) => {
    const run = spawnSync('sh', ['-c', 'exec "$@" > /dev/full', 'sh', bin, ...argv], {
      cwd: tree,
      encoding: 'utf8',
      timeout: budgetMs(15_000),
    })
    expect(run.status).toBe(2)
    expect(run.stderr).toBe('dsh: cannot write the output: ENOSPC: no space left on device, write\n')
  })

  it.each([
    ['Ctrl-C', 'SIGINT'],
    ['a host stopping it', 'SIGTERM'],
    ['a closed terminal', 'SIGHUP'],
  ] as const)(
    '%s during a search cancels it, kills rg and exits 130',
    async (_who, signal) => {
      // rg blocks opening a FIFO nobody writes to, so the search runs until it is cancelled.
      const fifo = join(tree, `fifo-${signal}`)
      execFileSync('mkfifo', [fifo])
      const child = spawn(bin, ['--spill-dir', spill, 'grep', 'needle', fifo], { cwd: tree, stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
      expect(await waitUntil(() => processesMentioning(fifo).some((pid) => pid !== child.pid), 20_000)).toBe(true)
      child.kill(signal)
      expect(await exited).toBe(130)
      expect(stderr).toMatch(/cancelled/)
      expect(await waitUntil(() => processesMentioning(fifo).length === 0, 2000)).toBe(true)
    },
    budgetMs(40_000),
  )

  it(
    'Ctrl-C during `dsh index` stops its change walk and exits 130, the index as it was',
    async () => {
      const home = tempDir('bin-index-cancel')
      const root = join(home, 'tree')
      writeTree(root, { 'a.ts': 'alpha\n' })
      const env = { ...process.env, XDG_CACHE_HOME: join(home, 'cache') }
      expect(spawnSync(bin, ['index'], { cwd: root, env, timeout: budgetMs(15_000) }).status).toBe(0)
      const indexDir = join(home, 'cache', 'dsh', 'index')
      const treeHome = join(indexDir, readdirSync(indexDir)[0]!)
      const before = readFileSync(join(treeHome, 'index.dshidx'))
      writeFileSync(join(root, 'a.ts'), 'alpha changed\n')
      // The update's change walk (find with -newerct) never finishes here, so the Ctrl-C always comes
      // during it; any other find (the program probe's) is the real one.
      const bin2 = join(home, 'bin')
      const realFind = execFileSync('sh', ['-c', 'command -v find'], { encoding: 'utf8' }).trim()
      writeTree(bin2, { find: `#!/bin/sh\ncase " $* " in *" -newerct "*) sleep 600 ;; *) exec ${realFind} "$@" ;; esac\n` })
      chmodSync(join(bin2, 'find'), 0o755)
      const child = spawn(bin, ['index'], {
        cwd: root,
        env: { ...env, PATH: `${bin2}:${process.env.PATH}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
      const find = join(bin2, 'find')
      expect(await waitUntil(() => processesMentioning(find).length > 0, 20_000)).toBe(true)
      child.kill('SIGINT')
      expect(await exited).toBe(130)
      expect(output).toBe('dsh: index: cancelled; the index is as it was\n')
      expect(await waitUntil(() => processesMentioning(find).length === 0, 2000)).toBe(true)
      expect(readdirSync(treeHome)).toEqual(['index.dshidx'])
      expect(readFileSync(join(treeHome, 'index.dshidx')).equals(before)).toBe(true)
    },
    budgetMs(40_000),
  )
})
