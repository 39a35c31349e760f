// What glob and grep share: one rg run through the bash seam, stderr reading, notes and budgets.
import { HarnessError, type AccessPolicy, type BashExecutor, type BashRunResult, type BashSpec, type SpillStore, type ToolExecContext } from '@dsh/core'
import type { SearchConfig } from './config.js'
import { displayPath } from './display-path.js'
import { SearchError } from './errors.js'
import { EXIT_CANNOT_ENTER, EXIT_MISSING } from './script-exit.js'
import { shellCommand } from './shell-quote.js'

/** What both tools share at run time. */
export interface SearchContext {
  bash: BashExecutor
  /** The rg command the load-time probe chose. */
  rg: string
  config: SearchConfig
  /** Optional: read when a result needs saving, so a store provided later is still used. */
  spillStore(): SpillStore | undefined
  /** Optional: the roots and deny rules a target must pass, read at each call. */
  access(): AccessPolicy | undefined
}

/** A finished rg run the tool still has to classify by exit code. */
export interface SearchRun {
  run: BashRunResult
  /** The resolved working directory: what relative paths mean and what displayed paths are relative to. */
  workdir: string
}

/**
 * How long after `timeoutMs` the registry's own deadline falls. The executor's timeout fires first,
 * stops rg's process group and waits until it is gone (bash-local's default kill grace is 2 s), so a
 * timed-out call returns with nothing left running; the registry's deadline is the backstop for an
 * executor that does not come back.
 */
export const TIMEOUT_BACKSTOP_MS = 5_000

// The end of an error is what explains it; 16 KiB holds dozens of rg's one-line errors.
const STDERR_MAX_BYTES = 16_384
// bash's "command not found" status.
const EXIT_COMMAND_NOT_FOUND = 127
// A `cd` answers in milliseconds; ten seconds means the executor itself is stuck.
const DIAGNOSIS_TIMEOUT_MS = 10_000

/**
 * Runs one search command through the bash seam (`resolve`, then `run`) and turns every way it can
 * fail to produce a parseable output into a `SearchError`. The caller's signal is forwarded as is.
 */
export async function runSearchCommand(ctx: SearchContext, exec: ToolExecContext, command: string): Promise<SearchRun> {
  const cwd = exec.agent?.session.header.cwd
  const request = {
    command,
    ...(cwd === undefined ? {} : { workdir: cwd }),
    timeoutMs: ctx.config.timeoutMs,
    stdoutMaxBytes: ctx.config.rawOutputMaxBytes,
    stderrMaxBytes: STDERR_MAX_BYTES,
    // Output past the cap is discarded anyway: stop rg at once instead of paying for the whole search.
    onStdoutOverflow: 'kill' as const,
    signal: exec.signal,
  }
  let spec: BashSpec | undefined
  let run: BashRunResult
  try {
    spec = await ctx.bash.resolve(request)
    run = await ctx.bash.run(spec)
  } catch (error) {
    throw await runFailure(ctx.bash, exec, spec, error)
  }
  throwIfAborted(exec, run)
  if (run.stdout.truncated || run.stdoutOverflowKilled) {
    // The executor may cap below the configured budget: quote the cap that stopped rg.
    throw new SearchError(
      'SEARCH_RAW_OUTPUT_OVERFLOW',
      `${exec.name} stopped: rg produced more than ${spec.stdoutMaxBytes} bytes of output. Narrow the pattern, path${exec.name === 'grep' ? ' or include' : ''} and search again.`,
    )
  }
  if (run.exitCode === EXIT_COMMAND_NOT_FOUND) {
    throw new SearchError('SEARCH_FAILED', `${exec.name} failed: ripgrep (${ctx.rg}) is no longer available to the executor. ${stderrExcerpt(run)}`)
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
      return new SearchError('SEARCH_FAILED', `${exec.name} cannot run in the working directory ${spec.workdir}: ${why}. Choose a directory the executor can enter.`, { cause: error })
    }
  }
  const reason = error instanceof Error ? error.message : String(error)
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

/**
 * Fails with SEARCH_ABORTED once the call's signal has fired or the run was stopped. A result built
 * after that is thrown away by the registry, so building it, let alone saving a spill for it, would
 * leave an orphan file behind a call reported as timed out.
 */
export function throwIfAborted(exec: ToolExecContext, run?: BashRunResult): void {
  if (!exec.signal.aborted && run?.aborted !== true && run?.timedOut !== true) return
  const reason: unknown = exec.signal.reason
  const timedOut = run?.timedOut === true || (reason instanceof HarnessError && reason.code === 'TOOL_TIMEOUT')
  const why = timedOut ? 'timed out' : 'was cancelled'
  const next = timedOut ? ' Narrow the pattern or path and search again.' : ''
  throw new SearchError('SEARCH_ABORTED', `${exec.name} ${why} before rg finished; no result was produced.${next}`)
}

/**
 * The failure a script status means for the path to search (missing, or a directory that cannot be
 * entered), or undefined for any other status. The working directory is named as such: the executor
 * found it, so when the shell cannot see it the cause is permission, not absence.
 */
export function targetFailure(tool: string, run: BashRunResult, workdir: string, target: string): SearchError | undefined {
  const missing = run.exitCode === EXIT_MISSING
  if (!missing && run.exitCode !== EXIT_CANNOT_ENTER) return undefined
  const shown = displayPath(workdir, target)
  const said = run.stderr.text.trim() === '' ? '' : ` ${stderrExcerpt(run)}`
  const denied = `exists but cannot be entered (permission denied for the executor's user).${said}`
  if (shown === '.') return new SearchError('SEARCH_FAILED', `${tool} cannot run in the working directory ${workdir}: it ${denied}`)
  if (missing) {
    return new SearchError('SEARCH_FAILED', `${tool} cannot search ${shown}: no such file or directory (or a directory above it cannot be entered). Check the path.`)
  }
  return new SearchError('SEARCH_FAILED', `${tool} cannot search ${shown}: the directory ${denied}`)
}

/** The error lines rg printed, without its `rg: ` prefix. */
export function rgErrorLines(run: BashRunResult): string[] {
  return run.stderr.text
    .split('\n')
    .filter((line) => line.startsWith('rg: '))
    .map((line) => line.slice(4))
}

/** The last lines of stderr, for a failure message. */
export function stderrExcerpt(run: BashRunResult): string {
  const text = run.stderr.text.trim()
  if (text === '') return '(rg printed no error)'
  const lines = text.split('\n')
  const tail = lines.slice(-8).join('\n')
  return lines.length > 8 || run.stderr.truncated ? `…${tail}` : tail
}

// How rg's own messages begin when it rejects a regex, a glob, or a type definition built from
// `include`. Matched as line prefixes: a path named "the literal" must not read as a pattern error.
const PATTERN_ERRORS = ['rg: regex parse error', 'rg: error parsing glob', 'rg: the literal', 'rg: invalid definition', 'rg: compiled regex exceeds size limit']

/** True when rg's stderr says the pattern or include was rejected (rg then searches nothing). */
export function isPatternError(run: BashRunResult): boolean {
  return run.stderr.text.split('\n').some((line) => PATTERN_ERRORS.some((prefix) => line.startsWith(prefix)))
}

/** How many names a footer lists before it only counts the rest. */
const NAMED_MAX = 5

/**
 * Names at most five of `names` and counts the rest. Sorted, because rg reports in its walk order,
 * which changes between identical calls; a footer must not (amendment 10).
 */
export function nameSome(names: readonly string[], separator = ', '): string {
  const sorted = [...names].sort()
  const more = sorted.length > NAMED_MAX ? `${separator}and ${sorted.length - NAMED_MAX} more` : ''
  return `${sorted.slice(0, NAMED_MAX).join(separator)}${more}`
}

/** What a partial search (rg's exit 2) left out: the paths rg named, or what it printed when it named none. */
export interface SearchGaps {
  paths: string[]
  /** rg's stderr excerpt, when it exited 2 without naming a path: incomplete all the same. */
  unexplained?: string
}

/** The gaps as the result's `incomplete` list. */
export function listGaps(gaps: SearchGaps): string[] {
  return gaps.unexplained === undefined ? gaps.paths : [gaps.unexplained]
}

/**
 * The footer for a search rg could not finish everywhere (exit 2 with output): not a failure, not
 * complete. When stderr was cut, the count is a lower bound and says so.
 */
export function incompleteNote(gaps: SearchGaps, stderrCut: boolean): string | undefined {
  if (gaps.unexplained !== undefined) return `(Search incomplete: rg exited with status 2, so some results may be missing; it printed: ${gaps.unexplained}.)`
  const errors = gaps.paths
  if (errors.length === 0) return undefined
  const count = `${stderrCut ? 'at least ' : ''}${errors.length} path${errors.length === 1 ? '' : 's'}`
  return `(Search incomplete: rg could not read ${count}, so results from them are missing: ${nameSome(errors, '; ')}.)`
}

/** How many leading items fit in `maxBytes` by `cost`; at least one, so a page is never empty. */
export function countWithinBytes<T>(items: readonly T[], maxBytes: number, cost: (item: T) => number): number {
  let bytes = 0
  let count = 0
  for (const item of items) {
    bytes += cost(item)
    if (bytes > maxBytes && count > 0) break
    count += 1
  }
  return count
}
