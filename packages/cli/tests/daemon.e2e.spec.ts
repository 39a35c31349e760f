// The built dsh with its warm server on, as a user runs it: the first call starts the server, later
// calls are served by it and print what the call in process prints; a stale socket, a version change,
// Ctrl-C and a socket directory that is not the user's alone.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { fnv1a } from '../src/daemon/place.js'
import { budgetMs, damageKeepingTime, processesMentioning, scratchDir, waitUntil, writeTree } from './io.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const dist = join(repo, 'packages', 'cli', 'dist')
const work = scratchDir('daemon-e2e')
const tree = join(work, 'tree')
const other = join(work, 'other')
const spill = join(work, 'spill')
writeTree(tree, { 'a.txt': 'needle\n-foo\n', 'sub/b.txt': 'one needle\ntwo\n' })
writeTree(other, { 'c.md': 'needle in other\n' })
writeFileSync(join(work, 'capped.json'), JSON.stringify({ 'tool-fs-search': { grepMaxMatches: 1 } }))
mkdirSync(spill)

let runtimes = 0
/** A fresh XDG_RUNTIME_DIR, 0700 as a login manager makes it; every server started in it is stopped after the file. */
function runtime(): string {
  const dir = join(work, `xdg${(runtimes += 1)}`)
  mkdirSync(dir, { mode: 0o700 })
  return dir
}
afterAll(async () => {
  for (const pid of processesMentioning(join(work, 'xdg'))) process.kill(pid, 'SIGTERM')
  await waitUntil(() => processesMentioning(join(work, 'xdg')).length === 0, 5000)
})

function envFor(xdg: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: xdg, DSH_DAEMON_IDLE_SECONDS: '120', ...extra }
  if (extra.DSH_NO_DAEMON === undefined) delete env.DSH_NO_DAEMON
  return env
}

function dsh(
  xdg: string,
  argv: string[],
  { cwd = tree, env = {}, program = bin }: { cwd?: string; env?: NodeJS.ProcessEnv; program?: string } = {},
) {
  const run = spawnSync(program, argv, { cwd, encoding: 'utf8', timeout: budgetMs(20_000), env: envFor(xdg, env) })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** The packaged rg, as the built dsh finds it. */
const packagedRg = () => execFileSync(process.execPath, ['-p', "require('@vscode/ripgrep').rgPath"], { cwd: repo, encoding: 'utf8' }).trim()

const socketOf = (xdg: string, distDir = dist) => join(xdg, 'dsh', `${fnv1a(distDir)}.sock`)
const servers = (socket: string) => processesMentioning(`daemon\0${socket}`)

/** Waits for the server a call started: listening, its socket only its user's. */
async function serving(socket: string): Promise<number> {
  const ready = () => {
    try {
      return (statSync(socket).mode & 0o777) === 0o600 && servers(socket).length === 1
    } catch {
      return false
    }
  }
  expect(await waitUntil(ready, 20_000)).toBe(true)
  return servers(socket)[0]!
}

/** The pids from `pid` up to init. */
function ancestors(pid: number): number[] {
  const chain: number[] = []
  for (let at = pid; at > 1;) {
    const stat = readFileSync(`/proc/${at}/stat`, 'utf8')
    at = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    chain.push(at)
  }
  return chain
}

describe('a server started in an indexed tree', () => {
  it(
    'loads its index and starts its watcher after the warm-up, before the next call (docs/design.md#a-warm-process-loads-its-index-first)',
    async () => {
      const xdg = runtime()
      const cache = join(work, 'index-cache')
      const indexed = join(work, 'indexed')
      writeTree(indexed, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`lib/f${i}.ts`, `export const f${i} = ${i}\n`])))
      const env = { XDG_CACHE_HOME: cache }
      expect(dsh(xdg, ['index', '--no-daemon'], { cwd: indexed, env })).toMatchObject({ code: 0 })
      const [home] = readdirSync(join(cache, 'dsh', 'index'))
      const sync = join(cache, 'dsh', 'index', home!, 'sync')
      // The first call runs in process, one-shot: no watcher, so no sync markers.
      expect(dsh(xdg, ['--spill-dir', spill, 'grep', 'f3 = 3'], { cwd: indexed, env })).toMatchObject({ code: 0 })
      expect(existsSync(sync)).toBe(false)
      await serving(socketOf(xdg))
      expect(await waitUntil(() => existsSync(sync), budgetMs(20_000))).toBe(true)
      // A byte of the header damaged, its time kept: a call that read the file again would refuse it,
      // so an answer from the index is one from what the server loaded before the call.
      const { before, after } = damageKeepingTime(join(cache, 'dsh', 'index', home!, 'index.dshidx'))
      expect(after).toBe(before)
      const served = dsh(xdg, ['--spill-dir', spill, 'grep', 'f7 = 7', '--format', 'json'], { cwd: indexed, env })
      expect(JSON.parse(served.stdout)).toMatchObject({ meta: { index: { used: true, changed: 0 } } })
      const inProcess = dsh(xdg, ['--spill-dir', spill, 'grep', 'f7 = 7', '--format', 'json'], {
        cwd: indexed,
        env: { ...env, DSH_NO_DAEMON: '1' },
      })
      expect(JSON.parse(inProcess.stdout)).toMatchObject({ meta: { index: { used: false, reason: 'refused' } } })
    },
    budgetMs(60_000),
  )
  it(
    'takes the link scan of the tree it started in, so the first served call there walks nothing (docs/design.md#a-warm-process-loads-its-index-first)',
    async () => {
      const xdg = runtime()
      const linked = join(work, 'linked')
      writeTree(linked, { 'store/p/a.ts': 'needle in store\n' })
      symlinkSync('store/p', join(linked, 'p'))
      const realLinked = realpathSync(linked)
      // A find on PATH that logs where it runs and how: the link scan's full walk of the tree starts at
      // `.` there and is not one level (the server's compile warm-up walks a tree of its own).
      const bins = join(work, 'logging-find')
      const log = join(work, 'find.log')
      const realFind = execFileSync('sh', ['-c', 'command -v find'], { encoding: 'utf8' }).trim()
      mkdirSync(bins)
      writeFileSync(join(bins, 'find'), `#!/bin/sh\nprintf '%s: %s\\n' "$(pwd -P)" "$*" >> '${log}'\nexec '${realFind}' "$@"\n`, {
        mode: 0o755,
      })
      const env = { PATH: `${bins}:${process.env.PATH}` }
      const walks = () =>
        existsSync(log)
          ? readFileSync(log, 'utf8')
              .split('\n')
              .filter((line) => line.startsWith(`${realLinked}: . `) && line.includes('-type l') && !line.includes('-maxdepth')).length
          : 0
      // The first call runs in process and walks; the server it starts walks once more, ahead of any call.
      expect(dsh(xdg, ['--spill-dir', spill, 'grep', 'needle'], { cwd: linked, env }).stdout).toContain('p/a.ts')
      const inProcess = walks()
      expect(inProcess).toBe(1)
      await serving(socketOf(xdg))
      // Seen once its walk starts. The served call then walks nothing itself: it finds the scan kept or,
      // arriving while the walk still ran, waits for it. Which of the two is not pinned here (this tree is
      // walked in milliseconds); the waiting is link-scan-memory.unit.spec.ts's 'a walk under way'.
      expect(await waitUntil(() => walks() > inProcess, budgetMs(20_000))).toBe(true)
      const served = dsh(xdg, ['--spill-dir', spill, 'grep', 'needle'], { cwd: linked, env })
      expect(served.stdout).toContain('p/a.ts')
      expect(walks()).toBe(inProcess + 1)
    },
    budgetMs(60_000),
  )
  it(
    'updates the index from its watcher when `dsh index` runs again there, and hands back a tree it does not watch',
    async () => {
      const xdg = runtime()
      const cache = join(work, 'index-cache-served')
      const indexed = join(work, 'indexed-served')
      writeTree(indexed, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`lib/f${i}.ts`, `export const f${i} = ${i}\n`])))
      const env = { XDG_CACHE_HOME: cache }
      // No server yet: built in process, and the server this call starts loads that index and watches the tree.
      expect(dsh(xdg, ['index'], { cwd: indexed, env }).stdout).toMatch(/^indexed 10 files/)
      await serving(socketOf(xdg))
      writeFileSync(join(indexed, 'lib/f3.ts'), 'export const f3 = 33\n')
      // Until the server's watcher is seeded (its prepare's walk, or a served grep's), the call is
      // handed back and runs in process, which the line says: ask again after a served grep.
      let served = dsh(xdg, ['index'], { cwd: indexed, env })
      for (let tries = 0; tries < 20 && !served.stdout.includes("from the warm server's watcher"); tries++) {
        dsh(xdg, ['--spill-dir', spill, 'grep', 'f3'], { cwd: indexed, env })
        served = dsh(xdg, ['index'], { cwd: indexed, env })
      }
      expect(served.code).toBe(0)
      expect(served.stdout).toMatch(/^updated the index of .* \(from the warm server's watcher, no walk\), \d+ files /)
      const grep = dsh(xdg, ['--spill-dir', spill, 'grep', 'f3 = 33', '--format', 'json'], { cwd: indexed, env })
      expect(JSON.parse(grep.stdout)).toMatchObject({
        content: expect.stringContaining('f3.ts'),
        meta: { index: { used: true, changed: 0 } },
      })
      // A tree the server does not watch: handed back, and built by the client.
      writeTree(join(work, 'unwatched'), { 'x.ts': 'x\n' })
      expect(dsh(xdg, ['index'], { cwd: join(work, 'unwatched'), env }).stdout).toMatch(/^indexed 1 files/)
    },
    budgetMs(60_000),
  )
})

describe('with the server on', () => {
  const xdg = runtime()
  const socket = socketOf(xdg)

  it(
    'the first call runs in process and starts a server in a 0700 directory, on a 0600 socket',
    async () => {
      const first = dsh(xdg, ['--spill-dir', spill, 'grep', 'needle'])
      expect(first).toEqual(dsh(xdg, ['--spill-dir', spill, 'grep', 'needle'], { env: { DSH_NO_DAEMON: '1' } }))
      await serving(socket)
      expect(statSync(join(xdg, 'dsh')).mode & 0o777).toBe(0o700)
    },
    budgetMs(60_000),
  )

  it.each([
    [['--spill-dir', spill, 'grep', 'needle']],
    [['--spill-dir', spill, 'grep', 'needle', '--color=always']],
    [['--spill-dir', spill, 'grep', 'needle', '--format', 'json']],
    [['--spill-dir', spill, 'grep', 'needle', '-0']],
    [['--spill-dir', spill, 'grep', 'absent']],
    [['--spill-dir', spill, 'grep', 'a(']],
    [['--spill-dir', spill, 'glob', '**/*.txt', '--format', 'lines']],
    [['read', 'a.txt']],
    [['read', '../outside']],
    [['grep', '--bogus']],
    [['tool-search', 'find files']],
    [['--spill-dir', spill, 'grep', '--', '-foo']],
  ])(
    'served %j: the same bytes and status as in process',
    async (argv) => {
      await serving(socket)
      expect(dsh(xdg, argv)).toEqual(dsh(xdg, argv, { env: { DSH_NO_DAEMON: '1' } }))
    },
    budgetMs(60_000),
  )

  it(
    'two cwds and two configs in succession: each call sees only its own',
    async () => {
      await serving(socket)
      const a = dsh(xdg, ['--spill-dir', spill, 'grep', 'needle', '-0'])
      const b = dsh(xdg, ['--spill-dir', spill, 'grep', 'needle', '-0'], { cwd: other })
      expect(a.stdout).toContain('a.txt')
      expect(b.stdout).toBe('c.md\u00001:needle in other\n')
      const capped: { meta: { truncated: boolean } } = JSON.parse(
        dsh(xdg, ['--config', join(work, 'capped.json'), '--spill-dir', spill, 'grep', 'needle', '--format', 'json']).stdout,
      )
      const plain: { meta: { truncated: boolean } } = JSON.parse(
        dsh(xdg, ['--spill-dir', spill, 'grep', 'needle', '--format', 'json']).stdout,
      )
      expect([capped.meta.truncated, plain.meta.truncated]).toEqual([true, false])
    },
    budgetMs(60_000),
  )

  it(
    'the probe cache: a replaced rg binary is probed again by the server, and the answer is the one in process',
    async () => {
      await serving(socket)
      const rg = join(work, 'own-rg', 'rg')
      mkdirSync(join(work, 'own-rg'))
      cpSync(packagedRg(), rg)
      const config = join(work, 'own-rg.json')
      writeFileSync(config, JSON.stringify({ 'tool-fs-search': { rgPath: rg } }))
      const argv = ['--config', config, '--spill-dir', spill, 'grep', 'needle', '-0']
      expect(dsh(xdg, argv)).toMatchObject({ code: 0, stderr: '' })
      // Answered from the cache now; then the binary is replaced by one that is not rg.
      expect(dsh(xdg, argv)).toMatchObject({ code: 0, stderr: '' })
      writeFileSync(`${rg}.new`, '#!/bin/sh\necho "not ripgrep"\n', { mode: 0o755 })
      renameSync(`${rg}.new`, rg)
      const served = dsh(xdg, argv)
      expect(served.stderr).toMatch(/not runnable in the executor: .*not ripgrep/)
      expect(served).toEqual(dsh(xdg, argv, { env: { DSH_NO_DAEMON: '1' } }))
    },
    budgetMs(60_000),
  )

  it(
    'the probe cache file: private, and a corrupt one is ignored and replaced',
    async () => {
      const file = join(xdg, 'dsh', 'probe-cache.json')
      await serving(socket)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      writeFileSync(file, '["dsh-probe-cache-1", [["forged", ')
      const argv = ['--spill-dir', spill, 'grep', 'needle']
      expect(dsh(xdg, argv, { env: { DSH_NO_DAEMON: '1' } })).toMatchObject({ code: 0, stderr: '' })
      expect((JSON.parse(readFileSync(file, 'utf8')) as unknown[])[0]).toBe('dsh-probe-cache-1')
    },
    budgetMs(60_000),
  )

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to the client cancels the search in the server: rg is killed, 130, and the server serves on',
    async (signal) => {
      const server = await serving(socket)
      const fifo = join(tree, `fifo-${signal}`)
      execFileSync('mkfifo', [fifo])
      const child = spawn(bin, ['--spill-dir', spill, 'grep', 'needle', fifo], {
        cwd: tree,
        env: envFor(xdg),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
      const rg = () => processesMentioning(fifo).filter((pid) => pid !== child.pid)
      expect(await waitUntil(() => rg().length > 0, 20_000)).toBe(true)
      // The search runs under the server, not the client: the call was served.
      expect(ancestors(rg()[0]!)).toContain(server)
      expect(ancestors(rg()[0]!)).not.toContain(child.pid)
      child.kill(signal)
      expect(await exited).toBe(130)
      expect(stderr).toMatch(/cancelled/)
      expect(await waitUntil(() => processesMentioning(fifo).length === 0, 2000)).toBe(true)
      expect(servers(socket)).toEqual([server])
    },
    budgetMs(60_000),
  )
})

describe('the server is replaced, never trusted', () => {
  it(
    "a dead server's socket file: the call runs in process and a new server replaces the file",
    async () => {
      const xdg = runtime()
      const socket = socketOf(xdg)
      mkdirSync(join(xdg, 'dsh'), { mode: 0o700 })
      spawnSync(process.execPath, [
        '-e',
        `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`,
      ])
      expect(existsSync(socket)).toBe(true)
      expect(dsh(xdg, ['read', 'a.txt'])).toMatchObject({ code: 0, stdout: expect.stringContaining('needle') })
      await serving(socket)
      expect(dsh(xdg, ['read', 'a.txt'])).toMatchObject({ code: 0, stdout: expect.stringContaining('needle') })
    },
    budgetMs(60_000),
  )

  it(
    'a server of another version stops, and the call that found it starts one of its own',
    async () => {
      // A copy of the installed package, whose version can change: rg cannot be found from here, read needs none.
      const install = join(work, 'install')
      mkdirSync(install)
      for (const part of ['bin', 'dist', 'package.json'])
        cpSync(join(repo, 'packages', 'cli', part), join(install, part), { recursive: true })
      const program = join(install, 'bin', 'dsh.js')
      const xdg = runtime()
      const socket = socketOf(xdg, join(install, 'dist'))
      dsh(xdg, ['read', 'a.txt'], { program })
      const old = await serving(socket)
      const manifest = JSON.parse(readFileSync(join(install, 'package.json'), 'utf8')) as { version: string }
      writeFileSync(join(install, 'package.json'), JSON.stringify({ ...manifest, version: '99.0.0' }))
      expect(dsh(xdg, ['read', 'a.txt'], { program })).toEqual(dsh(xdg, ['read', 'a.txt'], { program, env: { DSH_NO_DAEMON: '1' } }))
      expect(await waitUntil(() => !servers(socket).includes(old) && servers(socket).length === 1, 20_000)).toBe(true)
      expect(dsh(xdg, ['--version'], { program }).stdout).toBe('99.0.0\n')
    },
    budgetMs(90_000),
  )
})

describe('no server is started', () => {
  const quiet = async (xdg: string) => {
    await new Promise((resolve) => setTimeout(resolve, budgetMs(300)))
    expect(processesMentioning(xdg)).toEqual([])
  }

  it.each([
    ['--no-daemon', ['--no-daemon', 'read', 'a.txt'], {}],
    ['DSH_NO_DAEMON=1', ['read', 'a.txt'], { DSH_NO_DAEMON: '1' }],
    ['dsh completion', ['completion', 'bash'], {}],
    ['dsh tools', ['tools'], {}],
  ] as const)(
    '%s',
    async (_what, argv, env) => {
      const xdg = runtime()
      const run = dsh(xdg, [...argv], { env })
      expect(run.code).not.toBeNull()
      await quiet(xdg)
      // No socket; the probe cache (probe-cache.json) a call in process keeps there is no server.
      expect(existsSync(join(xdg, 'dsh')) ? readdirSync(join(xdg, 'dsh')).filter((name) => name.endsWith('.sock')) : []).toEqual([])
    },
    budgetMs(60_000),
  )

  it(
    'for an argument that is not UTF-8: refused in process',
    async () => {
      const xdg = runtime()
      const run = spawnSync('sh', ['-c', 'exec "$0" grep "$(printf \'\\377\')"', bin], { cwd: tree, encoding: 'utf8', env: envFor(xdg) })
      expect(run.status).toBe(2)
      expect(run.stderr).toMatch(/not valid UTF-8/)
      await quiet(xdg)
    },
    budgetMs(60_000),
  )

  it.each([
    ['others may enter', (dir: string) => chmodSync(dir, 0o755)],
    [
      'another uid owns (root can make one here)',
      (dir: string) => (process.getuid!() === 0 ? execFileSync('chown', ['12345', dir]) : chmodSync(dir, 0o711)),
    ],
  ])(
    'a socket directory %s: the call runs in process',
    async (_what, spoil) => {
      const xdg = runtime()
      mkdirSync(join(xdg, 'dsh'), { mode: 0o700 })
      spoil(join(xdg, 'dsh'))
      expect(dsh(xdg, ['read', 'a.txt'])).toEqual(dsh(xdg, ['read', 'a.txt'], { env: { DSH_NO_DAEMON: '1' } }))
      await quiet(xdg)
      expect(readdirSync(join(xdg, 'dsh'))).toEqual([])
    },
    budgetMs(60_000),
  )
})
