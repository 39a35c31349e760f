// One search script run through the bash seam, and every way it can fail to produce readable output.
import { errorMessage, HarnessError, type BashExecutor, type BashRunResult, type BashSpec, type ToolExecContext } from '@dsh/core'
import { SearchError } from '../errors.js'
import { throwIfAborted } from './abort.js'
import type { SearchContext } from './context.js'
import { stderrExcerpt } from './rg-stderr.js'
import { shellCommand } from './shell-quote.js'
import type { TimedOut } from './timeout.js'

/** A finished run the tool still has to classify by exit code. */
export interface SearchRun {
  run: BashRunResult
  /** The resolved working directory: what relative paths mean and what displayed paths are relative to. */
  workdir: string
  /**
   * Set when the executor stopped the run at its time limit and the script asked for what it had
   * printed (`onTimeout: 'partial'`): rg did not exit, so there is no status to classify.
   */
  timedOut?: TimedOut
}

/** One search script, and what the model can narrow when its output overflows. */
export interface SearchScript {
  command: string
  /** The arguments an overflow message tells the model to narrow, e.g. "pattern, path or include". */
  narrow: string
  /** Takes stdout as it arrives: the executor keeps none of it (docs/design.md#streamed-stdout). */
  stdoutSink: (chunk: Uint8Array) => void
  /**
   * The sink bounds its own memory (docs/design.md#results-bigger-than-memory): every byte rg prints
   * reaches it, whatever `rawOutputMaxBytes` says. @default false
   */
  streams?: boolean
  /** Told the resolved working directory before the script runs: what the sink's paths will be relative to. */
  onWorkdir?: (workdir: string) => void
  /** A shorter limit than the configured `timeoutMs`, for a run that follows the search within one call. */
  timeoutMs?: number
  /**
   * What a run the executor stopped at its time limit gives: SEARCH_ABORTED, or the run, for the tool
   * to finish from what its sink received (docs/design.md#a-timeout-returns-what-was-found). A caller's
   * cancellation is SEARCH_ABORTED either way. @default 'fail'
   */
  onTimeout?: 'fail' | 'partial'
}

// The end of an error is what explains it; 16 KiB holds dozens of rg's one-line errors.
const STDERR_MAX_BYTES = 16_384
// bash's "command not found" status.
const EXIT_COMMAND_NOT_FOUND = 127
// A `cd` answers in milliseconds; ten seconds means the executor itself is stuck.
const DIAGNOSIS_TIMEOUT_MS = 10_000

/**
 * Runs one search script through the bash seam (`resolve`, then `run`; docs/design.md#the-bash-seam)
 * and turns every way it can fail to produce a parseable output into a `SearchError`. The caller's
 * signal is forwarded as is; the executor's timeout is the configured one (docs/design.md#timeouts).
 */
export async function runSearchCommand(
  ctx: SearchContext,
  exec: ToolExecContext,
  { command, narrow, stdoutSink, streams = false, onWorkdir, timeoutMs, onTimeout = 'fail' }: SearchScript,
): Promise<SearchRun> {
  const cwd = exec.agent?.session.header.cwd
  const request = {
    command,
    ...(cwd === undefined ? {} : { workdir: cwd }),
    timeoutMs: Math.min(timeoutMs ?? ctx.config.timeoutMs, ctx.config.timeoutMs),
    stdoutMaxBytes: streams ? Number.MAX_SAFE_INTEGER : ctx.config.rawOutputMaxBytes,
    stderrMaxBytes: STDERR_MAX_BYTES,
    // Output past the cap is discarded anyway: stop rg at once instead of paying for the whole search.
    onStdoutOverflow: 'kill' as const,
    signal: exec.signal,
    stdoutSink,
  }
  let spec: BashSpec | undefined
  let run: BashRunResult
  try {
    spec = await ctx.bash.resolve(request)
    onWorkdir?.(spec.workdir)
    run = await ctx.bash.run(spec)
  } catch (error) {
    throw await runFailure(ctx.bash, exec, spec, error)
  }
  // The executor has already killed rg's process group: what it printed before is all there will be.
  if (onTimeout === 'partial' && run.stop === 'timeout' && !exec.signal.aborted) {
    return { run, workdir: spec.workdir, timedOut: { afterMs: spec.timeoutMs, narrow } }
  }
  throwIfAborted(exec, run)
  if (run.stdout.truncated || run.stop === 'overflow') {
    // The executor may cap below the configured budget: quote the cap that stopped rg.
    throw new SearchError(
      'SEARCH_RAW_OUTPUT_OVERFLOW',
      `${exec.name} stopped: rg produced more than ${spec.stdoutMaxBytes} bytes of output. Narrow the ${narrow} and search again.`,
    )
  }
  if (run.exitCode === EXIT_COMMAND_NOT_FOUND) {
    throw new SearchError(
      'SEARCH_FAILED',
      `${exec.name} failed: ripgrep (${ctx.rg}) is no longer available to the executor. ${stderrExcerpt(run)}`,
    )
  }
  return { run, workdir: spec.workdir }
}

/**
 * The failure for an executor that threw. A shell that cannot start in the working directory (one the
 * executor's user may not enter) reads as a shell that cannot start at all (Node reports `spawn
 * /bin/bash EACCES` for both), so a shell started in the executor's own directory is asked to enter
 * it: when that fails, its message names the cause.
 */
async function runFailure(bash: BashExecutor, exec: ToolExecContext, spec: BashSpec | undefined, error: unknown): Promise<SearchError> {
  if (spec !== undefined) {
    const why = await diagnoseWorkdir(bash, spec.workdir, exec.signal)
    if (why !== undefined) {
      return new SearchError(
        'SEARCH_FAILED',
        `${exec.name} cannot run in the working directory ${spec.workdir}: ${why}. Choose a directory the executor can enter.`,
        { cause: error },
      )
    }
  }
  const reason = errorMessage(error)
  const code = error instanceof HarnessError ? ` [${error.code}]` : ''
  return new SearchError('SEARCH_FAILED', `${exec.name} could not run${code}: ${reason}`, { cause: error })
}

/** What a shell started elsewhere prints when it cannot `cd` into `workdir`, or undefined. */
async function diagnoseWorkdir(bash: BashExecutor, workdir: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    const run = await bash.run(await bash.resolve({ command: `cd -- ${shellCommand([workdir])}`, timeoutMs: DIAGNOSIS_TIMEOUT_MS, signal }))
    const why = run.stderr.text.trim()
    return run.exitCode !== 0 && why !== '' ? why : undefined
  } catch {
    return undefined
  }
}
