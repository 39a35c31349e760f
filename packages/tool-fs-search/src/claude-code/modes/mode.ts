// What one Grep output mode is (docs/design.md#claude-codes-tool-surface): its rg flags, its reader, its heading and notes.
import path from 'node:path'
import type { SearchConfig } from '../../config.js'
import type { ShownMatches } from '../../engine/grep/matches.js'
import type { GlobRuns } from '../../engine/glob/runs.js'
import type { GrepPieces } from '../../engine/grep/pieces.js'
import type { TimedOut } from '../../engine/timeout.js'
import type { ClaudeGrepArgs } from '../args.js'
import type { CountRuns } from '../count-runs.js'
import type { ScriptHead, Searched } from '../script-head.js'

/** What one mode made of rg's output: its entries from any start, their count, the heading, the page's unit. */
export interface ModeResult {
  entries: (start: number) => Iterable<string>
  total: number
  matches: number
  heading: string
  /** What the result holds, in a note's words: "12 matching lines in 3 files", "4 files", "no matches". */
  tally: string
  unit: string
  /** Read once the page is taken: a window can change what they count. Each names at most five. */
  readonly notes: string[]
  found: boolean
  /**
   * Content mode's records, and the directory rg's paths are relative to: what windows are fetched
   * for. `before`: entries of the result before the first of `matches` (a streamed result holds only
   * the page's files).
   */
  content?: { matches: ShownMatches; base: string; before: number }
  /** The complete result's entries for the spill, when `entries` cannot give them all (a streamed result). */
  spillEntries?: () => Iterable<string>
}

/**
 * What a reader needs to take a result past `rawOutputMaxBytes` (docs/design.md#results-bigger-than-memory):
 * where its records go, made once rg's paths can be displayed, and which entries the page will ask for.
 */
export interface ModeStream {
  pieces: (searched: Searched) => GrepPieces
  /** Where a file list goes in sorted runs (files_with_matches), keeping at least `keep` files without a scratch file. */
  runs: (keep: number) => GlobRuns
  /** Where counts go in sorted runs, keeping at least `keep` entries without a scratch file, and how their paths show. */
  counts: (searched: Searched, keep: number) => { runs: CountRuns; show: (name: string) => string }
  /** The page's first entry and how many it may hold at most. */
  page: { offset: number; count: number }
}

/**
 * A mode's parser: it takes the script's stdout, then makes the mode's result once rg has finished, or
 * from what arrived when the executor stopped it (`timedOut`), a last record still arriving dropped.
 */
export interface ModeReader {
  push: (chunk: Uint8Array) => void
  finish: (workdir: string, timedOut: TimedOut | undefined) => ModeResult
}

/** One output mode, decided once per call from `output_mode`. */
export interface GrepMode {
  /** The rg flags that print this mode; every mode prints NUL after the path, so any name survives. */
  rgFlags(args: ClaudeGrepArgs, config: SearchConfig): string[]
  /** Whether rg's file list goes through the mtime helper, to be listed newest first as glob lists. */
  listsMtimes: boolean
  /** The mode's parser for one call's output. */
  reader(args: ClaudeGrepArgs, config: SearchConfig, target: string, stream?: ModeStream): ModeReader
}

/** `n one` or `n many`. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}

/**
 * What the paths rg printed are relative to: the directory searched from inside, or the workdir for a
 * file (and for a run stopped before the script's head: it printed no paths).
 */
export function baseOf(head: ScriptHead, workdir: string, target: string, timedOut: TimedOut | undefined): string {
  const searched = timedOut === undefined ? head.searched() : head.searchedSoFar()
  return searched === 'directory' ? path.resolve(workdir, target) : workdir
}

/** The footer for results whose lines or paths held bytes that were not valid UTF-8. */
export function lossyNote(count: number, one: string, many: string): string[] {
  if (count === 0) return []
  return [`(${count} ${count === 1 ? `${one} contains` : `${many} contain`} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`]
}
