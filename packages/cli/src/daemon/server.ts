// The warm server: one per user and install, holding the loaded program so a call skips its start-up.
// Each call runs runCli as the thin client's own process would, with the client's cwd, environment,
// arguments and terminal; one call at a time (docs/design.md#a-warm-server).
import { lstatSync, chmodSync, unlinkSync } from 'node:fs'
import net from 'node:net'
import { PassThrough } from 'node:stream'
import type { CliIo } from '../cli-io.js'
import { frame, LineReader, readRequest, type CallRequest, type Reply } from './wire.js'

/** What a server runs and how long it waits. */
export interface ServerOptions {
  socket: string
  /** Its own build identity (place.ts buildIdentity); a client of another build is told `stale`. */
  build: string
  version: string
  /** Idle this long after its last call, it stops. */
  idleMs: number
  /** One call: runCli, or a test's stand-in. */
  run: (argv: readonly string[], io: CliIo) => Promise<number>
  /**
   * Whether the call may be handed back (CliIo.served): it is taken only once `run` admits it or
   * writes, and a decline before that tells the client to run it in process. @default none may
   */
  mayDecline?: (argv: readonly string[]) => boolean
  /** Run once listening, before the first call is taken (a call meanwhile is told `busy`): compiles what calls run. */
  warmUp?: () => Promise<void>
  /** Stops the server (its process got SIGTERM): as idle, but now. */
  signal?: AbortSignal
  /** How often it checks that the socket path is still its own; a server replaced there stops. @default 10 s */
  checkMs?: number
}

/** Why a server stopped. */
type Stop = 'idle' | 'stale' | 'replaced' | 'stopped'

// A request carries the client's whole environment; a megabyte is far more than any real one.
const REQUEST_MAX_BYTES = 1 << 20

/**
 * Listens on `options.socket` and serves calls until idle, replaced, or told by a newer build's client
 * that it is stale; resolves then, with why. Resolves 'taken' at once when a live server already
 * listens there. A socket file nobody answers on (a server that died) is replaced.
 */
export async function serveDaemon(options: ServerOptions): Promise<'idle' | 'stale' | 'replaced' | 'stopped' | 'taken'> {
  const server = net.createServer()
  if (!(await listen(server, options.socket))) return 'taken'
  chmodSync(options.socket, 0o600)
  const own = lstatSync(options.socket).ino
  let busy = options.warmUp !== undefined
  let stopping = false
  let stopped!: (why: Stop) => void
  const done = new Promise<Stop>((resolve) => {
    stopped = resolve
  })
  options.signal?.addEventListener('abort', () => stop('stopped'))
  let idle = setTimeout(() => stop('idle'), options.idleMs)
  const check = setInterval(() => {
    if (inode(options.socket) !== own) stop('replaced')
  }, options.checkMs ?? 10_000)

  function stop(why: Stop): void {
    if (stopping) return
    stopping = true
    clearTimeout(idle)
    clearInterval(check)
    // Only its own socket file: a newer server may listen at the same path already. Never
    // server.close(): libuv removes a socket's path by name when it closes, whoever's file it is by then.
    if (inode(options.socket) === own) unlinkSync(options.socket)
    server.unref()
    stopped(why)
  }

  if (options.warmUp !== undefined) {
    void options
      .warmUp()
      .catch(() => undefined)
      .finally(() => (busy = false))
  }

  server.on('connection', (socket) => {
    // Stopped: the path is gone or another's, so only a connection already on its way arrives here.
    if (stopping) return void socket.destroy()
    const reader = new LineReader((line) => {
      // Whatever the client sends after its request is its Ctrl-C.
      if (request !== undefined) return void controller.abort()
      request = readRequest(line)
      if (request === undefined) return void socket.destroy()
      if (request.build !== options.build) {
        // The client's build differs: it starts its own server once this one has let go of the path.
        stop('stale')
        return void socket.end(frame(['stale']))
      }
      if (busy) return void socket.end(frame(['busy']))
      busy = true
      clearTimeout(idle)
      void serve(request, socket, controller.signal, options).finally(() => {
        busy = false
        if (!stopping) idle = setTimeout(() => stop('idle'), options.idleMs)
      })
    }, REQUEST_MAX_BYTES)
    let request: CallRequest | undefined
    const controller = new AbortController()
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk)
      } catch {
        socket.destroy()
      }
    })
    // A client that went away (killed, or its reader closed) cancels its call: no rg is left running.
    const abort = (): void => controller.abort()
    socket.on('close', abort)
    socket.on('error', abort)
  })
  return done
}

/**
 * Runs one call with the client's environment and cwd in place, and puts the server's back after. A
 * call that may be handed back is taken (`ok`) only when `run` admits it, and what it writes before
 * that is held; declined instead, the client is told `refused` with why, the held output is dropped,
 * and the client runs the call itself, printing its own.
 */
async function serve(request: CallRequest, socket: net.Socket, signal: AbortSignal, options: ServerOptions): Promise<void> {
  const send = (reply: Reply): void => {
    if (!socket.destroyed) socket.write(frame(reply))
  }
  let admitted = false
  let declined: string | undefined
  // What a call that may be handed back wrote before it was admitted (session load's warnings).
  const held: Reply[] = []
  const admit = (): void => {
    if (admitted) return
    admitted = true
    send(['ok'])
    for (const reply of held.splice(0)) send(reply)
  }
  const decline = (why: string): void => {
    if (!admitted) declined = why
  }
  const write = (stream: 'o' | 'e', text: string): void => {
    if (admitted) send([stream, text])
    else held.push([stream, text])
  }
  const home = process.cwd()
  const saved = { ...process.env } as Record<string, string>
  try {
    // The tools resolve relative paths and read the environment from the process, as in the client's own.
    process.chdir(request.cwd)
  } catch (error) {
    return void socket.end(frame(['refused', `cannot enter ${request.cwd}: ${(error as Error).message}`]))
  }
  replaceEnvironment(request.env)
  const served = options.mayDecline?.(request.argv) === true
  if (!served) admit()
  let status: number
  try {
    status = await options.run(request.argv, {
      stdout: { write: (text: string) => write('o', text) },
      stderr: { write: (text: string) => write('e', text) },
      cwd: request.cwd,
      version: options.version,
      // No served command reads stdin or writes bytes (dsh mcp is never served).
      stdio: { stdin: new PassThrough().end(), stdout: new PassThrough() },
      terminal: { isTTY: request.isTTY, env: request.env },
      signal,
      warm: true,
      ...(served ? { served: { admit, decline } } : {}),
    })
  } catch (error) {
    // What would have ended the client's own process with a stack trace ends its call with an error.
    declined = undefined
    admit()
    send(['e', `dsh: ${(error as Error).stack ?? String(error)}\n`])
    status = 2
  } finally {
    replaceEnvironment(saved)
    process.chdir(home)
  }
  if (!admitted && declined !== undefined) return void socket.end(frame(['refused', declined]))
  admit()
  if (!socket.destroyed) socket.end(frame(['x', status]))
}

/** Makes process.env exactly `env`: every key it lacks removed, every value set. */
export function replaceEnvironment(env: Readonly<Record<string, string>>): void {
  for (const key of Object.keys(process.env)) if (!Object.hasOwn(env, key)) delete process.env[key]
  for (const [key, value] of Object.entries(env)) process.env[key] = value
}

function inode(file: string): number | undefined {
  try {
    return lstatSync(file).ino
  } catch {
    return undefined
  }
}

/**
 * Listens at `socket`: true once listening, false when a live server answers there. A socket file
 * that refuses connections is a dead server's, and is removed first.
 */
async function listen(server: net.Server, socket: string): Promise<boolean> {
  for (let attempt = 0; ; attempt += 1) {
    const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve)
      server.listen(socket, () => {
        server.removeListener('error', resolve)
        resolve(undefined)
      })
    })
    if (failure === undefined) return true
    if (failure.code !== 'EADDRINUSE' || attempt > 0 || (await answers(socket))) return false
    try {
      unlinkSync(socket)
    } catch {
      // Gone already: listen again.
    }
  }
}

/** Whether something accepts a connection at `socket`. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socket)
    probe.once('connect', () => {
      probe.destroy()
      resolve(true)
    })
    probe.once('error', () => resolve(false))
  })
}
