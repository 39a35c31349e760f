// The warm server and its client over a real Unix socket, in this process: each call as the client's
// own process would run it (runCli, real rg), and nothing of one call in the next.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, linkSync, mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { runCli, type CliIo } from '@dsh/cli'
import { closeIndexWatchers } from '@dsh/index-local'
import { Config, LinkScanMemory, type ProbeCache } from '@dsh/tool-fs-search'
import { callServer, spawnServer, spawnServerAtExit, type ClientOptions } from '../src/daemon/client.js'
import { buildIdentity, dirInfo, socketDir, socketPath } from '../src/daemon/place.js'
import { createProbeCache } from '../src/probe-cache.js'
import { replaceEnvironment, serveDaemon, type ServerOptions } from '../src/daemon/server.js'
import { mayHandBack } from '../src/daemon/route.js'
import { frame, type CallRequest } from '../src/daemon/wire.js'
import { budgetMs, dsh, processesMentioning, scratchDir, waitUntil, writeTree } from './io.js'

const work = scratchDir('daemon')
const sockets = join(work, 'run')
mkdirSync(sockets, { mode: 0o700 })
const treeA = join(work, 'a')
const treeB = join(work, 'b')
const spill = join(work, 'spill')
writeTree(treeA, { 'one.ts': 'needle in a\n', 'sub/two.ts': 'needle again\n' })
writeTree(treeB, { 'three.md': 'needle in b\nneedle twice\nneedle thrice\n' })
writeFileSync(join(work, 'capped.json'), JSON.stringify({ 'tool-fs-search': { grepMaxMatches: 1 } }))
mkdirSync(spill)

const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
let count = 0
const stops: AbortController[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort()
})

/** A server at a fresh socket, stopped after the test. */
function startServer(overrides: Partial<ServerOptions> = {}): { socket: string; done: ReturnType<typeof serveDaemon> } {
  const socket = join(sockets, `s${(count += 1)}.sock`)
  const stop = new AbortController()
  stops.push(stop)
  const done = serveDaemon({
    socket,
    build: 'build-1',
    version: '9.9.9-test',
    idleMs: 600_000,
    run: runCli,
    signal: stop.signal,
    ...overrides,
  })
  return { socket, done }
}

/** Waits for the server to listen: its socket made only its user's is the last step. */
async function listening(socket: string): Promise<void> {
  const ready = () => {
    try {
      return (statSync(socket).mode & 0o777) === 0o600
    } catch {
      return false
    }
  }
  expect(await waitUntil(ready, 5000)).toBe(true)
}

/** One call through the server: its status (undefined: not taken) and what it printed. */
async function call(socket: string, argv: string[], request: Partial<CallRequest> = {}, options: Partial<ClientOptions> = {}) {
  let stdout = ''
  let stderr = ''
  const start = vi.fn()
  const code = await callServer(
    { build: 'build-1', argv, cwd: treeA, env, isTTY: false, ...request },
    {
      socket,
      start,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      acceptMs: budgetMs(5000),
      ...options,
    },
  )
  return { code, stdout, stderr, started: start.mock.calls.length }
}

const inProcess = (argv: string[], cwd: string, overrides: Partial<CliIo> = {}) => dsh(argv, cwd, overrides)

describe('a served call prints what the call in process prints', () => {
  it.each([
    [['--spill-dir', spill, 'grep', 'needle']],
    [['--spill-dir', spill, 'grep', 'needle', '--format', 'json']],
    [['--spill-dir', spill, 'grep', 'needle', '-0']],
    [['--spill-dir', spill, 'grep', 'absent']],
    [['--spill-dir', spill, 'glob', '**/*.ts', '--format', 'lines']],
    [['read', 'one.ts']],
    [['read', 'missing.ts']],
    [['read', '/etc/passwd']],
    [['tool-search', 'search files']],
    [['grep', '--bogus']],
    [['grep', '--', '-"$(touch pwned)"\n']],
    [['--format', 'html', 'read', 'one.ts']],
  ])('%j', async (argv) => {
    const { socket } = startServer()
    await listening(socket)
    const served = await call(socket, argv)
    const local = await inProcess(argv, treeA)
    expect(served).toEqual({ ...local, started: 0 })
    expect(existsSync(join(treeA, 'pwned'))).toBe(false)
  })

  it('colours as the client says its terminal does, and NO_COLOR in its environment turns it off', async () => {
    const { socket } = startServer()
    await listening(socket)
    const argv = ['--spill-dir', spill, 'grep', 'needle']
    const tty = await call(socket, argv, { isTTY: true, env: { ...env, TERM: 'xterm' } })
    expect(tty.stdout).toContain('\u001b[')
    expect(tty.stdout).toBe((await inProcess(argv, treeA, { terminal: { isTTY: true, env: { TERM: 'xterm' } } })).stdout)
    const noColor = await call(socket, argv, { isTTY: true, env: { ...env, TERM: 'xterm', NO_COLOR: '1' } })
    expect(noColor.stdout).not.toContain('\u001b[')
    expect((await call(socket, argv)).stdout).not.toContain('\u001b[')
  })
})

describe('nothing of one call leaks into the next', () => {
  it('two cwds in succession each search their own tree', async () => {
    const { socket } = startServer()
    await listening(socket)
    const a = await call(socket, ['--spill-dir', spill, 'grep', 'needle', '-0'], { cwd: treeA })
    const b = await call(socket, ['--spill-dir', spill, 'grep', 'needle', '-0'], { cwd: treeB })
    expect(a.stdout).toContain('one.ts')
    expect(a.stdout).not.toContain('three.md')
    expect(b.stdout).toContain('three.md')
    expect(b.stdout).not.toContain('one.ts')
  })

  it('two configs in succession: the second call is not capped by the first one', async () => {
    const { socket } = startServer()
    await listening(socket)
    const argv = ['--spill-dir', spill, 'grep', 'needle', '--format', 'json']
    const capped: { meta: { truncated: boolean } } = JSON.parse(
      (await call(socket, ['--config', join(work, 'capped.json'), ...argv], { cwd: treeB })).stdout,
    )
    const plain: { meta: { truncated: boolean } } = JSON.parse((await call(socket, argv, { cwd: treeB })).stdout)
    expect(capped.meta).toMatchObject({ total: 3, truncated: true })
    expect(plain.meta).toMatchObject({ total: 3, truncated: false })
  })

  it('roots given to one call reach nothing in the next', async () => {
    const { socket } = startServer()
    await listening(socket)
    const outside = join(treeB, 'three.md')
    expect((await call(socket, ['--root', treeB, 'read', outside])).code).toBe(0)
    const again = await call(socket, ['read', outside])
    expect(again.code).toBe(2)
    expect(again).toEqual({ ...(await inProcess(['read', outside], treeA)), started: 0 })
  })

  it('each call runs with its own environment and cwd, and the server gets its own back after', async () => {
    const seen: { env: string | undefined; cwd: string }[] = []
    const run = async () => {
      seen.push({ env: process.env.DSH_CALL_MARK, cwd: process.cwd() })
      return 0
    }
    const { socket } = startServer({ run })
    await listening(socket)
    const before = { ...process.env }
    const home = process.cwd()
    await call(socket, ['grep', 'x'], { cwd: treeA, env: { ...env, DSH_CALL_MARK: 'first' } })
    await call(socket, ['grep', 'x'], { cwd: treeB, env })
    expect(seen).toEqual([
      { env: 'first', cwd: treeA },
      { env: undefined, cwd: treeB },
    ])
    expect(process.env).toEqual(before)
    expect(process.cwd()).toBe(home)
  })

  it('the tools read the call environment: a PATH without rg in it (and no packaged rg) is not the last caller’s', async () => {
    const { socket } = startServer()
    await listening(socket)
    const configured = JSON.stringify({ 'tool-fs-search': { rgPath: 'rg-nowhere' } })
    writeFileSync(join(work, 'nowhere.json'), configured)
    const withPath = await call(socket, ['--config', join(work, 'nowhere.json'), '--spill-dir', spill, 'grep', 'needle'])
    expect(withPath.code).toBe(0)
    const local = await inProcess(['--config', join(work, 'nowhere.json'), '--spill-dir', spill, 'grep', 'needle'], treeA)
    expect(withPath).toEqual({ ...local, started: 0 })
  })

  it('replaceEnvironment makes process.env exactly what it is given', () => {
    const saved = { ...process.env } as Record<string, string>
    try {
      replaceEnvironment({ ONLY: 'this' })
      expect({ ...process.env }).toEqual({ ONLY: 'this' })
    } finally {
      replaceEnvironment(saved)
    }
    expect(process.env).toEqual(saved)
  })
})

describe('calls the server does not take run in process', () => {
  it('no server: the client starts one and says it did not run the call', async () => {
    const missing = await call(join(sockets, 'none.sock'), ['grep', 'x'])
    expect(missing).toEqual({ code: undefined, stdout: '', stderr: '', started: 1 })
  })

  it('a server of another build answers stale, stops and lets go of the socket; the client starts its own', async () => {
    const { socket, done } = startServer({ build: 'build-0' })
    await listening(socket)
    expect(await call(socket, ['grep', 'x'])).toEqual({ code: undefined, stdout: '', stderr: '', started: 1 })
    expect(await done).toBe('stale')
    expect(existsSync(socket)).toBe(false)
  })

  it('a busy server says so, and the second call runs in process', async () => {
    let release: () => void = () => undefined
    const run = () => new Promise<number>((resolve) => (release = () => resolve(0)))
    const { socket } = startServer({ run })
    await listening(socket)
    const first = call(socket, ['grep', 'x'])
    await vi.waitFor(() => expect(release).not.toBe(undefined))
    expect(await call(socket, ['grep', 'y'])).toEqual({ code: undefined, stdout: '', stderr: '', started: 0 })
    release()
    expect((await first).code).toBe(0)
  })

  it('a server still warming up is busy', async () => {
    let warmed: () => void = () => undefined
    const { socket } = startServer({ warmUp: () => new Promise((resolve) => (warmed = resolve)) })
    await listening(socket)
    expect((await call(socket, ['read', 'one.ts'])).code).toBeUndefined()
    warmed()
    await vi.waitFor(async () => expect((await call(socket, ['read', 'one.ts'])).code).toBe(0))
  })

  it('a warm-up that fails leaves the server serving', async () => {
    const { socket } = startServer({ warmUp: () => Promise.reject(new Error('no')) })
    await listening(socket)
    await vi.waitFor(async () => expect((await call(socket, ['read', 'one.ts'])).code).toBe(0))
  })

  it('a cwd the server cannot enter is refused', async () => {
    const { socket } = startServer()
    await listening(socket)
    expect((await call(socket, ['read', 'x'], { cwd: join(work, 'gone') })).code).toBeUndefined()
    expect((await call(socket, ['read', 'one.ts'])).code).toBe(0)
  })

  it('a server that accepts the connection but never answers is given up on', async () => {
    const socket = join(sockets, `mute${(count += 1)}.sock`)
    const mute = net.createServer(() => undefined)
    await new Promise<void>((resolve) => mute.listen(socket, resolve))
    try {
      expect((await call(socket, ['grep', 'x'], {}, { acceptMs: 200 })).code).toBeUndefined()
    } finally {
      mute.close()
    }
  })
})

/** A stand-in server that answers each request with `lines` (and does whatever `then` says with the socket). */
async function scripted(
  lines: string[],
  then: (socket: net.Socket) => void = (s) => s.end(),
): Promise<{ socket: string; close: () => void }> {
  const socket = join(sockets, `fake${(count += 1)}.sock`)
  const server = net.createServer((conn) => {
    conn.on('error', () => undefined)
    conn.once('data', () => {
      conn.write(lines.join(''))
      then(conn)
    })
  })
  await new Promise<void>((resolve) => server.listen(socket, resolve))
  return { socket, close: () => server.close() }
}

describe('the client trusts nothing it cannot read', () => {
  it.each([
    ['a reply that is not one, before ok', ['nonsense\n'], undefined, ''],
    ['a reply that is not one, after ok', [frame(['ok']), frame(['o', 'part']), 'nonsense\n'], 2, 'the warm server stopped'],
    ['a server that closes after ok', [frame(['ok']), frame(['o', 'part'])], 2, 'the warm server stopped'],
    ['a server that closes before ok', [], undefined, ''],
    ['a refusal', [frame(['refused', 'why'])], undefined, ''],
    // After ok, and the connection kept open: only the line's length can end the call (the accept timer is cleared by then).
    ['an endless line', [frame(['ok']), `["o","${'x'.repeat(2 << 20)}`], 2, 'the warm server stopped', () => undefined],
  ])(
    '%s',
    async (_what, lines, code, stderr, then?: (socket: net.Socket) => void) => {
      const fake = await scripted(lines, then)
      try {
        const result = await call(fake.socket, ['grep', 'x'], {}, { replyMaxBytes: 1 << 20 })
        expect(result.code).toBe(code)
        expect(result.stderr).toContain(stderr)
      } finally {
        fake.close()
      }
    },
    budgetMs(60_000),
  )

  it('an output it cannot write ends the call with status 2 and says why', async () => {
    const fake = await scripted([frame(['ok']), frame(['o', 'a']), frame(['o', 'b']), frame(['x', 0])])
    try {
      let stderr = ''
      const code = await callServer(
        { build: 'b', argv: [], cwd: '/', env: {}, isTTY: false },
        {
          socket: fake.socket,
          start: () => undefined,
          stdout: {
            write: () => {
              throw Object.assign(new Error('ENOSPC: no space left on device, write'), { syscall: 'write' })
            },
          },
          stderr: { write: (text: string) => (stderr += text) },
          acceptMs: budgetMs(5000),
        },
      )
      expect(code).toBe(2)
      expect(stderr).toBe('dsh: cannot write the output: ENOSPC: no space left on device, write\n')
    } finally {
      fake.close()
    }
  })
})

describe('Ctrl-C cancels the search in the server', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s: rg is killed, the server answers 130 and serves the next call',
    async (signal) => {
      const { socket } = startServer()
      await listening(socket)
      const fifo = join(treeA, `fifo-${signal}`)
      execFileSync('mkfifo', [fifo])
      // Listeners of this process would be run too: the client's are the only ones while it waits.
      const others = process.listeners(signal)
      for (const listener of others) process.removeListener(signal, listener)
      try {
        const running = call(socket, ['--spill-dir', spill, 'grep', 'needle', fifo])
        expect(await waitUntil(() => processesMentioning(fifo).length > 0, 20_000)).toBe(true)
        process.emit(signal)
        const result = await running
        expect(result.code).toBe(130)
        expect(result.stderr).toMatch(/cancelled/)
        expect(await waitUntil(() => processesMentioning(fifo).length === 0, 2000)).toBe(true)
      } finally {
        for (const listener of others) process.on(signal, listener)
      }
      expect((await call(socket, ['read', 'one.ts'])).code).toBe(0)
    },
    budgetMs(40_000),
  )

  it('a second Ctrl-C stops waiting for a server that does not answer the first', async () => {
    const fake = await scripted([frame(['ok'])], () => undefined)
    const others = process.listeners('SIGINT')
    for (const listener of others) process.removeListener('SIGINT', listener)
    try {
      const running = call(fake.socket, ['grep', 'x'])
      await vi.waitFor(() => expect(process.listenerCount('SIGINT')).toBe(1))
      process.emit('SIGINT')
      process.emit('SIGINT')
      expect((await running).code).toBe(130)
    } finally {
      for (const listener of others) process.on('SIGINT', listener)
      fake.close()
    }
  })

  it(
    'a client that goes away cancels its call: no rg is left running',
    async () => {
      const { socket } = startServer()
      await listening(socket)
      const fifo = join(treeA, 'fifo-gone')
      execFileSync('mkfifo', [fifo])
      const conn = net.connect(socket)
      conn.on('error', () => undefined)
      conn.write(frame({ build: 'build-1', argv: ['--spill-dir', spill, 'grep', 'needle', fifo], cwd: treeA, env, isTTY: false }))
      expect(await waitUntil(() => processesMentioning(fifo).length > 0, 20_000)).toBe(true)
      conn.destroy()
      expect(await waitUntil(() => processesMentioning(fifo).length === 0, 2000)).toBe(true)
    },
    budgetMs(40_000),
  )
})

describe("the server's life", () => {
  it('listens on a socket only its user may open, and keeps serving while it is its own', async () => {
    const { socket } = startServer({ checkMs: 10 })
    await listening(socket)
    expect(statSync(socket).mode & 0o777).toBe(0o600)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect((await call(socket, ['read', 'one.ts'])).code).toBe(0)
  })

  it('stops when its socket file is removed', async () => {
    const { socket, done } = startServer({ checkMs: 20 })
    await listening(socket)
    unlinkSync(socket)
    expect(await done).toBe('replaced')
  })

  it('once stopped, drops a connection that still reaches it (through a link to its socket)', async () => {
    const { socket, done } = startServer()
    await listening(socket)
    const link = `${socket}.link`
    linkSync(socket, link)
    stops.at(-1)!.abort()
    expect(await done).toBe('stopped')
    expect(await call(link, ['read', 'one.ts'])).toMatchObject({ code: undefined, started: 0 })
  })

  it('a call still running when a newer build stops the server finishes, and no idle timer is set after', async () => {
    let release: () => void = () => undefined
    const run = () => new Promise<number>((resolve) => (release = () => resolve(0)))
    const { socket, done } = startServer({ run })
    await listening(socket)
    const first = call(socket, ['grep', 'x'])
    await vi.waitFor(() => expect(release).not.toBe(undefined))
    expect((await call(socket, ['grep', 'x'], { build: 'build-2' })).code).toBeUndefined()
    expect(await done).toBe('stale')
    release()
    expect((await first).code).toBe(0)
  })

  it('a connection to where no socket can be does not start a server', async () => {
    expect(await call('/etc/passwd/x.sock', ['read', 'x'])).toEqual({ code: undefined, stdout: '', stderr: '', started: 0 })
  })

  it('stops when no call comes at all', async () => {
    const { socket, done } = startServer({ idleMs: 200 })
    expect(await done).toBe('idle')
    expect(existsSync(socket)).toBe(false)
  })

  it('stops when idle after its last call, and removes its socket file', async () => {
    const { socket, done } = startServer({ idleMs: budgetMs(500) })
    await listening(socket)
    expect((await call(socket, ['read', 'one.ts'])).code).toBe(0)
    expect(await done).toBe('idle')
    expect(existsSync(socket)).toBe(false)
  })

  it('stops when its socket file is replaced, and leaves the new one alone', async () => {
    const { socket, done } = startServer({ checkMs: 50 })
    await listening(socket)
    unlinkSync(socket)
    writeFileSync(socket, 'another server')
    expect(await done).toBe('replaced')
    expect(existsSync(socket)).toBe(true)
  })

  it('another server listening there already: taken', async () => {
    const first = startServer()
    await listening(first.socket)
    const stop = new AbortController()
    stops.push(stop)
    expect(await serveDaemon({ socket: first.socket, build: 'b', version: 'v', idleMs: 1000, run: runCli, signal: stop.signal })).toBe(
      'taken',
    )
  })

  it("replaces a dead server's socket file", async () => {
    const socket = join(sockets, `dead${(count += 1)}.sock`)
    spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ])
    expect(existsSync(socket)).toBe(true)
    expect(await call(socket, ['read', 'one.ts'])).toMatchObject({ code: undefined, started: 1 })
    const stop = new AbortController()
    stops.push(stop)
    void serveDaemon({ socket, build: 'build-1', version: '9.9.9-test', idleMs: 60_000, run: runCli, signal: stop.signal })
    await vi.waitFor(async () => expect((await call(socket, ['read', 'one.ts'])).code).toBe(0))
  })

  it('a socket it cannot listen on (no such directory) is not taken silently: it says taken and serves nothing', async () => {
    expect(await serveDaemon({ socket: join(work, 'no', 'dir.sock'), build: 'b', version: 'v', idleMs: 1000, run: runCli })).toBe('taken')
  })

  it('a request it cannot read closes the connection unanswered', async () => {
    const { socket } = startServer()
    await listening(socket)
    for (const bad of ['garbage\n', `${'x'.repeat((1 << 20) + 10)}`]) {
      const answer = await new Promise<string>((resolve) => {
        let text = ''
        const conn = net.connect(socket, () => conn.write(bad))
        conn.on('data', (chunk) => (text += chunk.toString()))
        conn.on('close', () => resolve(text))
        conn.on('error', () => undefined)
      })
      expect(answer).toBe('')
    }
  })

  it('a run that throws something not an Error ends the call with it on stderr', async () => {
    const { socket } = startServer({ run: () => Promise.reject('boom') })
    await listening(socket)
    expect(await call(socket, ['grep', 'x'])).toMatchObject({ code: 2, stderr: 'dsh: boom\n' })
  })

  it('a run that throws ends the call with status 2 and the error on stderr', async () => {
    const { socket } = startServer({ run: () => Promise.reject(new Error('boom')) })
    await listening(socket)
    const result = await call(socket, ['grep', 'x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^dsh: Error: boom/)
  })
})

describe('dsh index in the warm server', () => {
  afterAll(() => closeIndexWatchers())
  const tree = join(work, 'indexed')
  writeTree(tree, { 'a.ts': 'alpha\n', 'b.ts': 'beta\n', 'c.ts': 'gamma\n' })
  const config = join(work, 'index-config.json')
  writeFileSync(config, JSON.stringify({ 'index-local': { dir: join(work, 'index'), broadFraction: 1 } }))
  /** runCli, recording each decline's reason: a call not taken for another reason (busy, a failure) records none. */
  function recording(declines: string[]): ServerOptions['run'] {
    return (argv, io) => {
      const served = io.served
      if (served === undefined) return runCli(argv, io)
      return runCli(argv, { ...io, served: { admit: served.admit, decline: (why) => (declines.push(why), served.decline(why)) } })
    }
  }

  it('hands back an index it keeps no watcher of, and a rebuild; updates one it watches from the watcher', async () => {
    const declines: string[] = []
    const { socket } = startServer({ mayDecline: mayHandBack, run: recording(declines) })
    await listening(socket)
    // No watcher yet: the client is told to run it (it builds in process, as without a server).
    expect(await call(socket, ['index', '--config', config], { cwd: tree })).toEqual({
      code: undefined,
      stdout: '',
      stderr: '',
      started: 0,
    })
    expect(declines).toEqual([`the warm server updates only an index it watches, from its watcher, and ${tree}'s is not one`])
    expect((await dsh(['index', '--config', config], tree)).stdout).toMatch(/^indexed 3 files/)
    // A served search starts the server's watcher of that index.
    const first = await call(socket, ['grep', 'alpha', '--config', config, '--format', 'json'], { cwd: tree })
    expect(JSON.parse(first.stdout)).toMatchObject({ meta: { index: { used: true, changed: 0 } } })
    writeFileSync(join(tree, 'b.ts'), 'beta alpha\n')
    expect((await call(socket, ['index', '--config', config, '--rebuild'], { cwd: tree })).code).toBeUndefined()
    expect(declines).toHaveLength(2)
    const served = await call(socket, ['index', '--config', config], { cwd: tree })
    expect(served.code).toBe(0)
    expect(served.stdout).toMatch(
      new RegExp(
        `^updated the index of ${tree} in [\\d.]+ s: \\d+ files and directories changed since its build \\(from the warm server's watcher, no walk\\), 1 files`,
      ),
    )
    // The update holds the change: nothing is read as changed, and the new match is found.
    const after = await call(socket, ['grep', 'alpha', '--config', config, '--format', 'json'], { cwd: tree })
    const parsed = JSON.parse(after.stdout) as { content: string; meta: { index: unknown } }
    expect(parsed.meta.index).toMatchObject({ used: true, changed: 0 })
    expect(parsed.content).toContain('b.ts')
    // JSON says where the changes came from (an update keys every change since the build: b.ts and
    // c.ts); an index elsewhere (--index-dir) is handed back.
    writeFileSync(join(tree, 'c.ts'), 'gamma alpha\n')
    const json = await call(socket, ['index', '--config', config, '--format', 'json'], { cwd: tree })
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'update', changesFrom: 'watcher', root: tree, files: 2 })
    expect((await call(socket, ['index', '--config', config, '--index-dir', join(work, 'other')], { cwd: tree })).code).toBeUndefined()
    expect(declines).toHaveLength(3)
  })

  it('fails, saying to run it in process, when its watcher cannot vouch for the changes: no walk or build in the server', async () => {
    const small = join(work, 'indexed-small')
    writeTree(small, { 'a.ts': 'alpha\n', 'b.ts': 'beta\n', 'c.ts': 'gamma\n' })
    const smallConfig = join(work, 'index-small.json')
    // A watcher keeps one change at most: past it, it cannot say what changed.
    writeFileSync(
      smallConfig,
      JSON.stringify({ 'index-local': { dir: join(work, 'index-small'), broadFraction: 1, changedMaxEntries: 1 } }),
    )
    const { socket } = startServer({ mayDecline: mayHandBack })
    await listening(socket)
    expect((await dsh(['index', '--config', smallConfig], small)).code).toBe(0)
    expect((await call(socket, ['grep', 'alpha', '--config', smallConfig], { cwd: small })).code).toBe(0)
    for (const name of ['a.ts', 'b.ts', 'c.ts']) writeFileSync(join(small, name), 'omega\n')
    const served = await call(socket, ['index', '--config', smallConfig], { cwd: small })
    expect(served).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'dsh: index: the warm server could not update the index from its watcher (more than 1 files and directories changed: run dsh index); run dsh index --no-daemon\n',
    })
  })

  it('holds what a call that may be handed back writes until it is taken, and drops it when declined', async () => {
    const runs: Array<(io: CliIo) => Promise<number>> = [
      async (io) => {
        io.stderr.write('dsh: warning: held\n')
        io.served!.decline('handed back')
        return 0
      },
      async (io) => {
        io.stderr.write('dsh: warning: held\n')
        io.served!.admit()
        io.stdout.write('after\n')
        return 0
      },
      async (io) => {
        io.served!.admit()
        io.served!.decline('too late')
        return 1
      },
      async (io) => {
        io.served!.decline('then it threw')
        throw new Error('thrown')
      },
      async (io) => {
        io.stdout.write('neither\n')
        return 0
      },
    ]
    const { socket } = startServer({ mayDecline: () => true, run: (_argv, io) => runs.shift()!(io) })
    await listening(socket)
    expect(await call(socket, ['index'])).toEqual({ code: undefined, stdout: '', stderr: '', started: 0 })
    expect(await call(socket, ['index'])).toMatchObject({ code: 0, stdout: 'after\n', stderr: 'dsh: warning: held\n' })
    expect(await call(socket, ['index'])).toMatchObject({ code: 1, stdout: '' })
    expect(await call(socket, ['index'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: Error: thrown/) })
    expect(await call(socket, ['index'])).toMatchObject({ code: 0, stdout: 'neither\n' })
  })

  it('gives no hold on a call it may not hand back', async () => {
    let served: unknown = 'unset'
    const { socket } = startServer({
      mayDecline: mayHandBack,
      run: async (_argv, io) => {
        served = io.served
        return 0
      },
    })
    await listening(socket)
    expect((await call(socket, ['grep', 'x'])).code).toBe(0)
    expect(served).toBeUndefined()
  })
})

describe('where the socket lives', () => {
  it('in $XDG_RUNTIME_DIR/dsh, made 0700', () => {
    const runtime = join(work, 'xdg1')
    mkdirSync(runtime, { mode: 0o700 })
    expect(socketDir({ XDG_RUNTIME_DIR: runtime }, process.getuid!())).toEqual({ dir: join(runtime, 'dsh') })
    expect(statSync(join(runtime, 'dsh')).mode & 0o777).toBe(0o700)
  })

  it('in the temp directory without an absolute $XDG_RUNTIME_DIR', () => {
    const place = socketDir({ XDG_RUNTIME_DIR: 'relative' }, process.getuid!())
    expect(place).toEqual({ dir: expect.stringMatching(new RegExp(`dsh-${process.getuid!()}$`)) })
  })

  it('refuses a directory others may enter', () => {
    const runtime = join(work, 'xdg2')
    mkdirSync(join(runtime, 'dsh'), { recursive: true })
    chmodSync(join(runtime, 'dsh'), 0o755)
    expect(socketDir({ XDG_RUNTIME_DIR: runtime }, process.getuid!())).toEqual({
      refused: `${join(runtime, 'dsh')}: its mode is 755, not 700`,
    })
  })

  it('refuses a directory another uid owns (made with chown where this runs as root; the check itself is unit-tested)', () => {
    const runtime = join(work, 'xdg3')
    mkdirSync(join(runtime, 'dsh'), { recursive: true, mode: 0o700 })
    const uid = process.getuid!()
    if (uid === 0) {
      execFileSync('chown', ['12345', join(runtime, 'dsh')])
      expect(socketDir({ XDG_RUNTIME_DIR: runtime }, uid)).toEqual({ refused: `${join(runtime, 'dsh')}: it is owned by uid 12345, not 0` })
    } else {
      expect(socketDir({ XDG_RUNTIME_DIR: runtime }, uid + 1)).toMatchObject({ refused: expect.stringContaining(`owned by uid ${uid}`) })
    }
  })

  it('refuses a directory it cannot make', () => {
    const runtime = join(work, 'xdg4')
    writeFileSync(runtime, 'a file, not a directory')
    expect(socketDir({ XDG_RUNTIME_DIR: runtime }, process.getuid!())).toEqual({ refused: `${join(runtime, 'dsh')}: it does not exist` })
    expect(dirInfo(join(runtime, 'dsh'))).toBeUndefined()
  })

  it('a socket path longer than a socket address holds is none', () => {
    expect(socketPath('/run/user/1000/dsh', '/usr/lib/node_modules/@dsh/cli/dist')).toMatch(/^\/run\/user\/1000\/dsh\/[0-9a-f]{8}\.sock$/)
    expect(socketPath(`/${'d'.repeat(100)}`, '/x')).toBeUndefined()
  })

  it("a build's identity changes with its program file, and there is none without one", () => {
    const program = join(work, 'program.cjs')
    writeFileSync(program, 'one')
    const first = buildIdentity('1.0.0', program)
    expect(first).toMatch(/^1\.0\.0:v\d+/)
    expect(buildIdentity('1.0.1', program)).not.toBe(first)
    writeFileSync(program, 'two, longer')
    expect(buildIdentity('1.0.0', program)).not.toBe(first)
    expect(buildIdentity('1.0.0', join(work, 'none.cjs'))).toBeUndefined()
  })
})

describe('starting a server', () => {
  it('spawns `node PROGRAM daemon SOCKET` detached, with where to listen in its environment', async () => {
    const out = join(work, 'spawned.json')
    const program = join(work, 'fake-server.cjs')
    writeFileSync(
      program,
      `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ argv: process.argv.slice(2), socket: process.env.DSH_DAEMON_SOCKET, idle: process.env.DSH_DAEMON_IDLE_MS }))`,
    )
    spawnServer(program, '/s.sock', 1234, { PATH: process.env.PATH })
    await vi.waitFor(() => expect(existsSync(out)).toBe(true), { timeout: budgetMs(10_000) })
    await vi.waitFor(() =>
      expect(JSON.parse(execFileSync('cat', [out], { encoding: 'utf8' }) || 'null')).toEqual({
        argv: ['daemon', '/s.sock'],
        socket: '/s.sock',
        idle: '1234',
      }),
    )
  })

  it('at exit, once per socket', () => {
    const before = process.listenerCount('exit')
    spawnServerAtExit('/nowhere.mjs', '/x.sock', 1, {})
    spawnServerAtExit('/nowhere.mjs', '/x.sock', 1, {})
    expect(process.listenerCount('exit')).toBe(before + 1)
    const added = process.listeners('exit').at(-1)!
    process.removeListener('exit', added)
    // Run here instead: a program that does not exist is no error of the caller's.
    expect(() => added(0)).not.toThrow()
  })

  it('a Node that cannot start is no error of the caller', async () => {
    const before = process.listenerCount('uncaughtException')
    spawnServer('/p', '/s', 1, {}, join(work, 'no-node'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(process.listenerCount('uncaughtException')).toBe(before)
  })

  it('a spawn that throws at once is no error of the caller', () => {
    expect(() => spawnServer('/p', '/s', 1, { BAD: 'a\0b' })).not.toThrow()
  })
})

describe('the probe cache reaches the search plugin', () => {
  /** A real cache that counts what it is asked. */
  function counted(): { cache: ProbeCache; lookups: () => number; records: () => number } {
    const real = createProbeCache()
    let lookups = 0
    let records = 0
    return {
      lookups: () => lookups,
      records: () => records,
      cache: { get: (key) => ((lookups += 1), real.get(key)), set: (...args) => ((records += 1), real.set(...args)) },
    }
  }

  it('with the default executor: a call asks it, and a second call is answered from it', async () => {
    const { cache, lookups, records } = counted()
    const first = await inProcess(['--spill-dir', spill, 'grep', 'needle'], treeA, { probeCache: cache })
    expect(await inProcess(['--spill-dir', spill, 'grep', 'needle'], treeA, { probeCache: cache })).toEqual(first)
    expect(first).toEqual(await inProcess(['--spill-dir', spill, 'grep', 'needle'], treeA))
    expect([lookups(), records()]).toEqual([2, 1])
  })

  it('not when the config sets the executor up: it may run another shell, in another environment', async () => {
    const { cache, lookups } = counted()
    writeFileSync(join(work, 'executor.json'), JSON.stringify({ 'bash-local': { shellPath: '/bin/sh' } }))
    const run = await inProcess(['--config', join(work, 'executor.json'), '--spill-dir', spill, 'grep', 'needle'], treeA, {
      probeCache: cache,
    })
    expect(run.code).toBe(0)
    expect(lookups()).toBe(0)
  })
})

describe('the link scan memory reaches the search plugin', () => {
  it('with the default executor: a call fills it, and the next call of the tree answers the same from it', async () => {
    const memory = new LinkScanMemory(Config.parse({}).linkScanSettleMs)
    const first = await inProcess(['--spill-dir', spill, 'grep', 'needle'], treeA, { linkScanMemory: memory })
    expect(memory.size.roots).toBe(1)
    expect(await inProcess(['--spill-dir', spill, 'grep', 'needle'], treeA, { linkScanMemory: memory })).toEqual(first)
    expect(memory.size.roots).toBe(1)
  })

  it('not when the config sets the executor up: its find may see another machine', async () => {
    const memory = new LinkScanMemory(Config.parse({}).linkScanSettleMs)
    writeFileSync(join(work, 'executor.json'), JSON.stringify({ 'bash-local': { shellPath: '/bin/sh' } }))
    const run = await inProcess(['--config', join(work, 'executor.json'), '--spill-dir', spill, 'grep', 'needle'], treeA, {
      linkScanMemory: memory,
    })
    expect(run.code).toBe(0)
    expect(memory.size.roots).toBe(0)
  })
})
