// What glob and grep share: one rg run through the bash seam, stderr reading, notes and budgets.
import { HarnessError, type BashExecutor, type BashRunResult, type SpillStore, type ToolExecContext } from '@dsh/core'
import type { SearchConfig } from './config.js'
import { SearchError } from './errors.js'

/** What both tools share at run time. */
export interface SearchContext {
  bash: BashExecutor
  /** The rg command the load-time probe chose. */
  rg: string
  config: SearchConfig
  /** Optional: read when a result needs saving, so a store provided later is still used. */
  spillStore(): SpillStore | undefined
}

/** A finished rg run the tool still has to classify by exit code. */
export interface SearchRun {
  run: BashRunResult
  /** The resolved working directory: what relative paths mean and what displayed paths are relative to. */
  workdir: string
}

// The end of an error is what explains it; 16 KiB holds dozens of rg's one-line errors.
const STDERR_MAX_BYTES = 16_384
// bash's "command not found" status.
const EXIT_COMMAND_NOT_FOUND = 127

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
  let run: BashRunResult
  let workdir: string
  try {
    const spec = await ctx.bash.resolve(request)
    workdir = spec.workdir
    run = await ctx.bash.run(spec)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    const code = error instanceof HarnessError ? ` [${error.code}]` : ''
    throw new SearchError('SEARCH_FAILED', `${exec.name} could not run${code}: ${reason}`, { cause: error })
  }
  if (run.aborted || run.timedOut) throw abortedError(exec, run)
  if (run.stdout.truncated || run.stdoutOverflowKilled) {
    throw new SearchError(
      'SEARCH_RAW_OUTPUT_OVERFLOW',
      `${exec.name} stopped: rg produced more than ${ctx.config.rawOutputMaxBytes} bytes of output. Narrow the pattern, path${exec.name === 'grep' ? ' or include' : ''} and search again.`,
    )
  }
  if (run.exitCode === EXIT_COMMAND_NOT_FOUND) {
    throw new SearchError('SEARCH_FAILED', `${exec.name} failed: ripgrep (${ctx.rg}) is no longer available to the executor. ${stderrExcerpt(run)}`)
  }
  return { run, workdir }
}

function abortedError(exec: ToolExecContext, run: BashRunResult): SearchError {
  const reason: unknown = exec.signal.reason
  const timedOut = run.timedOut || (reason instanceof HarnessError && reason.code === 'TOOL_TIMEOUT')
  const why = timedOut ? 'timed out' : 'was cancelled'
  const next = timedOut ? ' Narrow the pattern or path and search again.' : ''
  return new SearchError('SEARCH_ABORTED', `${exec.name} ${why} before rg finished; no result was produced.${next}`)
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

/**
 * The footer for a search rg could not finish everywhere (exit 2 with output): not a failure, not
 * complete. When stderr was cut, the count is a lower bound and says so.
 */
export function incompleteNote(errors: readonly string[], stderrCut: boolean): string {
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
