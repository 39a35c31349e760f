// The start case (issue 27): a tiny-tree `dsh grep` as a process against rg and `node -e 0`, every one
// started in a session of its own; with the warm server (docs/design.md#a-warm-server), in process
// (--no-daemon), and as the first call that finds no server running and starts one.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { processesMentioning } from '../test-support/processes.js'
import { REPO_ROOT } from './build.js'
import type { BenchContext, CaseResult, Corpus } from './cases.js'
import { runInterleaved, type Contender, type Rounds } from './measure.js'
import { drainProcess } from './processes.js'

const DSH = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'dsh.js')

/** The two start cases. */
export interface StartCases {
  /** dsh grep served warm; rg; dsh grep in process; node -e 0. */
  warm: CaseResult
  /** The first call with the server on and none running (it starts one at exit); the same call in process. */
  first: CaseResult
}

/** Measures both start cases; every server they start is stopped before this returns. */
export async function startCases(ctx: BenchContext, corpus: Corpus, spillRoot: string, rounds: Rounds): Promise<StartCases> {
  const runtime = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-xdg-'))
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtime, DSH_DAEMON_IDLE_SECONDS: '600' }
  delete env.DSH_NO_DAEMON
  const cold = { ...env, DSH_NO_DAEMON: '1' }
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
  try {
    // The first call starts the server; its warm-up compiles a grep before it takes calls.
    await drainProcess(argv, { env, ownSession: true })
    await serverReady(runtime)
    const warm = await runInterleaved(
      [timed('dsh grep, warm server', argv, env), rg, timed('dsh grep --no-daemon', argv, cold), node],
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
        labels: ['dsh grep, warm server', 'rg', 'dsh grep --no-daemon', 'node -e 0'],
        times: warm,
      },
      first: {
        corpus: corpus.name,
        name: 'cli first call (process)',
        detail,
        labels: ['dsh grep, no server yet', 'dsh grep --no-daemon'],
        times: first,
      },
    }
  } finally {
    await stopServers(runtime)
    rmSync(runtime, { recursive: true, force: true })
  }
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
