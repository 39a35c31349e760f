// A search the executor stopped at its time limit: what rg printed by then is the result, marked partial.
import type { BashRunResult } from '@dsh/core'
import type { SearchGaps } from './exit-2.js'
import { rgErrorLines } from './rg-stderr.js'

/** A run the executor stopped at its time limit (docs/design.md#a-timeout-returns-what-was-found). */
export interface TimedOut {
  /** The limit the executor applied, which may be lower than the configured `timeoutMs`: the one a note quotes. */
  afterMs: number
  /** What the model can narrow, e.g. "pattern, path or include". */
  narrow: string
}

/** A limit as a note quotes it: `30 s`, `1.5 s`, `0.25 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`
}

/**
 * The footer of a partial result: how long the search ran, what it found by then (`found`, in the
 * tool's words: "12 matches in 3 files"), and how to get the rest.
 */
export function timeoutNote({ afterMs, narrow }: TimedOut, found: string): string {
  return `(Stopped after ${seconds(afterMs)}, the search's time limit: partial result, ${found} so far; rg had not finished, so more may exist. Narrow the ${narrow}, or raise timeoutMs.)`
}

/** `value.incomplete` of a result: the timeout first, when the run was stopped, then what rg could not read. */
export function incompleteEntries(timedOut: TimedOut | undefined, gaps: readonly string[]): string[] {
  if (timedOut === undefined) return [...gaps]
  return [`stopped after ${seconds(timedOut.afterMs)} (timeoutMs) before rg finished: what it had not yet printed is missing`, ...gaps]
}

/**
 * What a stopped run left out besides what it never reached: the paths rg had named as unreadable. It
 * did not exit, so there is no status to read them by; its stderr says what it could not read so far.
 */
export function timedOutGaps(run: BashRunResult): SearchGaps {
  return { paths: rgErrorLines(run) }
}
