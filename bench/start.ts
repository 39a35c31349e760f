// The start case (issue 27): a tiny-tree `dsh grep` as a process against rg and `node -e 0`, every one
// started in a session of its own; with the warm server (docs/design.md#a-warm-server), in process
// (--no-daemon, with and without the probe cache's file), and as the first call that finds no server
// running and starts one. Then a served call taken apart: Node's start, the client loaded, a round
// trip to a server that answers at once, a served read, a served grep.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { processesMentioning } from '../test-support/processes.js'
import { REPO_ROOT } from './build.js'
import type { BenchContext, CaseResult, Corpus } from './cases.js'
import { runInterleaved, type Contender, type Rounds } from './measure.js'
import { drainProcess } from './processes.js'

const DSH = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'dsh.js')
const DIST = path.join(REPO_ROOT, 'packages', 'cli', 'dist')
const CLIENT = path.join(DIST, 'dsh-client.cjs')

/** The two start cases. */
export interface StartCases {
  /** dsh grep served warm; rg; dsh grep in process; node -e 0. */
  warm: CaseResult
  /** The first call with the server on and none running (it starts one at exit); the same call in process. */
  first: CaseResult
  /** A served grep against what it is made of: Node's start, the client loaded, a round trip, a served read. */
  parts: CaseResult
}

/** The labels of the warm case, in order: bench/targets.ts reads the first three by position. */
export const WARM_LABELS = ['dsh grep, warm server', 'rg', 'dsh grep --no-daemon', 'node -e 0', '--no-daemon, no probe cache file'] as const
/** The labels of the parts case, in order. */
export const PARTS_LABELS = [
  'dsh grep, warm server',
  'node -e 0',
  'node, the client loaded',
  'dsh grep, instant server',
  'dsh read, warm server',
] as const

/** Measures both start cases; every server they start is stopped before this returns. */
export async function startCases(ctx: BenchContext, corpus: Corpus, spillRoot: string, rounds: Rounds): Promise<StartCases> {
  const runtime = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-xdg-'))
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtime, DSH_DAEMON_IDLE_SECONDS: '600' }
  delete env.DSH_NO_DAEMON
  const cold = { ...env, DSH_NO_DAEMON: '1' }
  // A socket directory others may enter: the call keeps no probe cache file there (nor starts a server).
  const open = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-xdg-open-'))
  mkdirSync(path.join(open, 'dsh'), { mode: 0o755 })
  const uncached = { ...cold, XDG_RUNTIME_DIR: open }
  // A server that answers every call at once with one line: what the client and a round trip cost.
  const instant = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-xdg-instant-'))
  const stub = await instantServer(instant)
  const argv = [DSH, 'grep', corpus.patterns.narrow, '--cwd', corpus.root, '--spill-dir', spillRoot]
  const timed = (label: string, command: string[], processEnv: NodeJS.ProcessEnv, before?: () => Promise<void>): Contender => ({
    label,
    run: async () => {
      await before?.()
      return (await drainProcess(command, { env: processEnv, ownSession: true })).ms
    },
  })
  const rg = timed('rg', [ctx.rg, '--no-heading', '--with-filename', '-n', corpus.patterns.narrow, corpus.root], env)
  const node = timed('node -e 0', [process.execPath, '-e', '0'], env)
  const served = timed(WARM_LABELS[0], argv, env)
  try {
    // The first call starts the server; its warm-up compiles a grep before it takes calls.
    await drainProcess(argv, { env, ownSession: true })
    await serverReady(runtime)
    const warm = await runInterleaved([served, rg, timed(WARM_LABELS[2], argv, cold), node, timed(WARM_LABELS[4], argv, uncached)], rounds)
    const parts = await runInterleaved(
      [
        served,
        node,
        timed(PARTS_LABELS[2], [process.execPath, '-e', `require(${JSON.stringify(CLIENT)})`], env),
        timed(PARTS_LABELS[3], argv, { ...env, XDG_RUNTIME_DIR: instant }),
        timed(PARTS_LABELS[4], [DSH, 'read', firstFile(corpus.root), '--cwd', corpus.root], env),
      ],
      rounds,
    )
    const first = await runInterleaved(
      [timed('dsh grep, no server yet', argv, env, () => stopServers(runtime)), timed('dsh grep --no-daemon', argv, cold)],
      rounds,
    )
    const detail = `\`${corpus.patterns.narrow}\` on ${corpus.name}, each process in a session of its own`
    return {
      warm: {
        corpus: corpus.name,
        name: 'cli start (process)',
        detail,
        labels: [...WARM_LABELS],
        times: warm,
      },
      parts: { corpus: corpus.name, name: 'cli served call, taken apart (process)', detail, labels: [...PARTS_LABELS], times: parts },
      first: {
        corpus: corpus.name,
        name: 'cli first call (process)',
        detail,
        labels: ['dsh grep, no server yet', 'dsh grep --no-daemon'],
        times: first,
      },
    }
  } finally {
    stub.close()
    await stopServers(runtime)
    for (const dir of [runtime, open, instant]) rmSync(dir, { recursive: true, force: true })
  }
}

/** A file of the tree, for the served read. */
function firstFile(root: string): string {
  const file = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .sort()
    .find((name) => name.endsWith('.ts'))
  if (file === undefined) throw new Error(`bench: no .ts file under ${root}`)
  return path.join(root, file)
}

/**
 * A stand-in server where the client looks for this install's (bench-only): it answers every request
 * with `ok`, one line of output and status 0 as soon as it is read, whatever the request's build.
 */
async function instantServer(runtime: string): Promise<net.Server> {
  const { socketPath } = (await import(path.join(DIST, 'daemon', 'place.js'))) as typeof import('../packages/cli/src/daemon/place.js')
  mkdirSync(path.join(runtime, 'dsh'), { mode: 0o700 })
  const server = net.createServer((socket) => {
    socket.once('data', () => socket.end(`["ok"]\n["o","instant\\n"]\n["x",0]\n`))
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(socketPath(path.join(runtime, 'dsh'), DIST)!, resolve))
  return server
}

/** Waits until the server listens and has had time to warm up (a served call then answers from warm code). */
async function serverReady(runtime: string): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      const dir = path.join(runtime, 'dsh')
      const socket = path.join(
        dir,
        readdirSync(dir).find((name) => name.endsWith('.sock'))!,
      )
      if ((statSync(socket).mode & 0o777) === 0o600) break
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error('bench: the dsh server did not start within 30 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // Its warm-up grep: a call meanwhile would be told busy and run in process.
  await new Promise((resolve) => setTimeout(resolve, 2000))
}

/** Stops the servers started under `runtime` (SIGTERM: each removes its socket) and waits for them to go. */
async function stopServers(runtime: string): Promise<void> {
  for (const pid of processesMentioning(runtime)) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // gone already
    }
  }
  for (let i = 0; i < 200 && processesMentioning(runtime).length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10))
}
