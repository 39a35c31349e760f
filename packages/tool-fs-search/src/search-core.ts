import path from 'node:path'
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

// What rg prints when it rejects a regex, a glob, or a type definition built from `include`.
const PATTERN_ERRORS = ['regex parse error', 'error parsing glob', 'the literal', 'invalid definition', 'size limit']

/** True when rg's stderr says the pattern or include was rejected. */
export function isPatternError(run: BashRunResult): boolean {
  return PATTERN_ERRORS.some((marker) => run.stderr.text.includes(marker))
}

// A newline in a name would split it across lines of the result; JSON quoting keeps it one item.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL = /[\u0000-\u001f\u007f]/

/** A path as the model sees it: relative to the workdir when inside it, control characters escaped. */
export function displayPath(workdir: string, file: string): string {
  const absolute = path.resolve(workdir, file)
  const relative = path.relative(workdir, absolute)
  const shown = relative === '' ? '.' : relative === '..' || relative.startsWith(`..${path.sep}`) ? absolute : relative
  return CONTROL.test(shown) ? JSON.stringify(shown) : shown
}

/**
 * `displayPath` for the many names rg prints under one directory, at the cost of a string join each:
 * resolving every one of 100k paths costs ~350 ms. Names that could step outside `dir` (`..`, an
 * absolute path) and a `dir` that itself needs quoting take the full route.
 */
export function displayFrom(workdir: string, dir: string): (name: string) => string {
  const base = displayPath(workdir, dir)
  const slow = (name: string): string => displayPath(workdir, path.resolve(dir, name))
  if (base.startsWith('"')) return slow
  const prefix = base === '.' ? '' : base.endsWith('/') ? base : `${base}/`
  return (name) => {
    const relative = name.startsWith('./') ? name.slice(2) : name
    if (relative.startsWith('/') || relative.startsWith('../') || relative.includes('/../') || relative === '..' || relative.endsWith('/..')) return slow(name)
    const shown = prefix + relative
    return CONTROL.test(shown) ? JSON.stringify(shown) : shown
  }
}

/** How many unreadable paths a note names before it only counts. */
const INCOMPLETE_NAMED_MAX = 5

/** The footer for a search rg could not finish everywhere (exit 2 with output): not a failure, not complete. */
export function incompleteNote(errors: readonly string[]): string {
  const named = errors.slice(0, INCOMPLETE_NAMED_MAX).join('; ')
  const more = errors.length > INCOMPLETE_NAMED_MAX ? `; and ${errors.length - INCOMPLETE_NAMED_MAX} more` : ''
  return `(Search incomplete: rg could not read ${errors.length} path${errors.length === 1 ? '' : 's'}, so results from them are missing: ${named}${more}.)`
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

/** A relative path that cannot read as an option, or as `cd -` (the previous directory). */
export function explicitPath(value: string): string {
  return value.startsWith('/') ? value : `./${value}`
}
