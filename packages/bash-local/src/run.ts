// run(): one command to completion, timeout or abort, with bounded capture and nothing left running.
import { once } from 'node:events'
import type { BashRunResult, BashSpec } from '@dsh/core'
import { ForwardCapture, HeadCapture, TailCapture } from './capture.js'
import { ensureWatcher } from './lifeline.js'
import { ProcessGroup } from './process-group.js'
import { spawnFailure, spawnShell } from './spawn-shell.js'

// A process that closed its pipes finishes exiting within microseconds, a few ms on a loaded
// machine. An unreaped zombie (an init that does not reap, as in some containers) keeps the group
// id in use and would hold every killed run for the whole bound, so the bound stays small.
const GROUP_GONE_WAIT_MS = 25

/** What ended a run early; the first reason wins. */
type Stop = 'timeout' | 'abort' | 'overflow'

/** What `runSpec` needs beyond the spec. */
export interface RunSettings {
  shellPath: string
  killGraceMs: number
}

/**
 * Runs a spec to completion, timeout or abort, and reports it. Returns only after the shell has
 * closed its pipes, and leaves no member of its process group running. Stdout goes to the spec's
 * sink when it has one; a sink that throws stops the group, and the run rejects with its error.
 */
export async function runSpec(spec: BashSpec, settings: RunSettings): Promise<BashRunResult> {
  const startedAt = performance.now()
  const sink = spec.stdoutSink
  const stdout = sink === undefined ? new HeadCapture(spec.stdoutMaxBytes) : new ForwardCapture(spec.stdoutMaxBytes, sink)
  const stderr = new TailCapture(spec.stderrMaxBytes)
  const report = (stop: Stop | undefined, exitCode: number | null, signal: string | null): BashRunResult => ({
    exitCode,
    signal,
    stop: stop ?? 'exit',
    durationMs: Math.round(performance.now() - startedAt),
    stdout: stdout.result(),
    stderr: stderr.result(),
  })
  if (spec.signal?.aborted) return report('abort', null, null)

  ensureWatcher({ shellPath: settings.shellPath, env: spec.env })
  const child = spawnShell(spec, settings.shellPath)
  if (child.pid === undefined) throw await spawnFailure(child, spec, settings.shellPath)
  const group = new ProcessGroup(child.pid, settings.killGraceMs)
  let stop: Stop | undefined
  const stopWith = (reason: Stop): void => {
    stop ??= reason
    group.terminate()
  }
  const onAbort = (): void => stopWith('abort')
  const deadline = setTimeout(() => stopWith('timeout'), spec.timeoutMs)
  spec.signal?.addEventListener('abort', onAbort, { once: true })
  const settle = (): void => {
    clearTimeout(deadline)
    spec.signal?.removeEventListener('abort', onAbort)
  }

  let sinkFailure: { error: unknown } | undefined
  child.stdout.on('data', (chunk: Buffer) => {
    if (sinkFailure !== undefined) return
    let over: boolean
    try {
      over = stdout.push(chunk)
    } catch (error) {
      sinkFailure = { error }
      group.terminate()
      return
    }
    if (over && spec.onStdoutOverflow === 'kill') stopWith('overflow')
  })
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  child.once('exit', () => {
    // The command is done. Whatever still holds the pipes is a background leftover: stop it, and let
    // the grace (not the deadline) bound the wait for the pipes to close.
    settle()
    group.terminate()
  })
  const [exitCode, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null]
  settle()
  group.finish()
  await group.gone(GROUP_GONE_WAIT_MS)
  if (sinkFailure !== undefined) throw sinkFailure.error
  return report(stop, exitCode, signal)
}
