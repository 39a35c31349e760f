// The thin client: hands a served call to the warm server and prints its answer, or says it cannot,
// and the caller runs the call in process. Node builtins only, and nothing of the program: not loading
// the program is the point (docs/design.md#a-warm-server).
import { createRequire } from 'node:module'
import net from 'node:net'
import { CANCEL, frame, LineReader, readReply, type CallRequest } from './wire.js'

/** Where a server started by spawnServer listens, and how long it idles (ms): set in its environment. */
export const SERVER_SOCKET_ENV = 'DSH_DAEMON_SOCKET'
export const SERVER_IDLE_ENV = 'DSH_DAEMON_IDLE_MS'

/** What the client needs to know of its install and its process. */
export interface ClientOptions {
  socket: string
  /** Starts a server at `socket` in the background (spawnServer), when none answers or it is stale. */
  start: () => void
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
  /** Waits this long for a server to accept the call before running it in process. */
  acceptMs: number
  /** A reply line longer than this is no reply (tests make it small). @default 256 MiB */
  replyMaxBytes?: number
}

// An answer line holds at most one write of the program's; none is near this.
const REPLY_MAX_BYTES = 256 << 20
const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * Runs `request` in the server: its exit status, or undefined when the server did not take the call
 * (none listens, it is busy or of another build, it refused or failed before answering). Then nothing
 * was printed, and the caller runs the call in process; a server started here serves the next call.
 * Ctrl-C, SIGTERM and SIGHUP are passed on as a cancel: the server stops the search and answers 130.
 */
export function callServer(request: CallRequest, options: ClientOptions): Promise<number | undefined> {
  return new Promise((resolve) => {
    let accepted = false
    let settled = false
    const socket = net.connect(options.socket)
    let cancelled = false
    // The first Ctrl-C asks the server to cancel (it answers 130 once rg is stopped); a second stops waiting.
    const cancel = (): void => {
      if (cancelled) return finish(130)
      cancelled = true
      socket.write(frame(CANCEL))
    }
    const finish = (status: number | undefined): void => {
      settled = true
      clearTimeout(timer)
      for (const signal of CANCEL_SIGNALS) process.removeListener(signal, cancel)
      socket.destroy()
      resolve(status)
    }
    // Before the server took the call: nothing printed, so the caller runs it. After: too late for that.
    const lost = (): void => {
      if (!settled) finish(accepted ? broken(options) : undefined)
    }
    // A server that accepts the connection but never answers (stopped, or stuck) is no server.
    const timer = setTimeout(() => finish(undefined), options.acceptMs)
    const print = (stream: { write(text: string): unknown }, text: string): void => {
      try {
        stream.write(text)
      } catch (error) {
        // A file as stdout writes synchronously, so its failure (a full disk) arrives here.
        options.stderr.write(`dsh: cannot write the output: ${(error as Error).message}\n`)
        finish(2)
      }
    }
    const reader = new LineReader((line) => {
      if (settled) return
      const reply = readReply(line)
      if (reply === undefined) return lost()
      switch (reply[0]) {
        case 'ok':
          accepted = true
          clearTimeout(timer)
          for (const signal of CANCEL_SIGNALS) process.on(signal, cancel)
          return
        case 'o':
          return print(options.stdout, reply[1])
        case 'e':
          return print(options.stderr, reply[1])
        case 'x':
          return finish(reply[1])
        case 'stale':
          options.start()
          return finish(undefined)
        case 'busy':
        case 'refused':
          return finish(undefined)
      }
    }, options.replyMaxBytes ?? REPLY_MAX_BYTES)
    socket.on('connect', () => socket.write(frame(request)))
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk)
      } catch {
        lost()
      }
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // No server, or a dead one's socket file: start one for the next call.
      if (!accepted && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) options.start()
      lost()
    })
    socket.on('close', lost)
  })
}

/** The server went away in the middle of a call, after printing part of it: too late to run it here. */
function broken(options: ClientOptions): number {
  options.stderr.write('dsh: the warm server stopped during the call; run it again (or with --no-daemon)\n')
  return 2
}

/**
 * Starts a server in the background once this process exits: `node program daemon SOCKET` in a session
 * of its own, detached from this terminal and this process's lifetime, with DSH_DAEMON_SOCKET saying
 * where to listen. Started at exit, not now: the call runs in process meanwhile, and a server loading
 * beside it on a busy machine slowed that first call by a fifth (docs/performance.md#a-warm-server).
 */
export function spawnServerAtExit(program: string, socket: string, idleMs: number, env: NodeJS.ProcessEnv): void {
  if (started.has(socket)) return
  started.add(socket)
  process.once('exit', () => spawnServer(program, socket, idleMs, env))
}
const started = new Set<string>()

/** Starts the server now (spawnServerAtExit's work). */
export function spawnServer(program: string, socket: string, idleMs: number, env: NodeJS.ProcessEnv, node = process.execPath): void {
  try {
    // Loaded only here: a served call, which starts no server, never loads it.
    const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
    // The socket in its arguments too, so `ps` shows which server this is.
    const child = spawn(node, [program, 'daemon', socket], {
      detached: true,
      stdio: 'ignore',
      env: { ...env, [SERVER_SOCKET_ENV]: socket, [SERVER_IDLE_ENV]: String(idleMs) },
    })
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // No server this time: the next call starts one.
  }
}
