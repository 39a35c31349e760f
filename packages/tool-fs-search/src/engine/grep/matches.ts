// Matches as the model sees them: grouped under display paths, files sorted, each file's lines in order.
import type { GrepMatch, ParsedOutput } from './parse.js'
import type { StreamedRecords } from './pieces.js'
import { CUT, ESCAPED, flagsOf, lineNumberOf, markOf, textEnd, WINDOW, type RecordRun, type RecordTable } from './records.js'

/** One file as shown: its display path and its records in line order. */
export interface ShownFile {
  path: string
  /** How many records it has. */
  size: number
  /** Its first record, when its records lie end to end in line order (one run, as rg printed it). */
  first: number
  /** Its records in order otherwise (runs that merged, or lines out of order); undefined for one run. */
  order: Uint32Array | undefined
  /**
   * The path rg printed for it, when all its records came under one and it held no byte that had to be
   * replaced: what a later step can open it by.
   */
  source?: string
}

/** The matches in page order, as records in the parser's bytes: no object per match. */
export interface ShownMatches {
  bytes: Buffer
  records: RecordTable
  /** Sorted by path. */
  files: ShownFile[]
  total: number
  /** Matched lines whose control characters are shown escaped. */
  escaped: number
  /** Matches whose line or path holds bytes that were not valid UTF-8 (shown as U+FFFD); a U+FFFD of the file's own is not one. */
  lossy: number
  /**
   * Files in the whole result, when `files` holds only those that sort first (a streamed result,
   * docs/design.md#results-bigger-than-memory); `total`, `escaped` and `lossy` then count the whole
   * result too.
   */
  fileCount?: number
}

/**
 * Groups the parsed records under display paths (`shown`), sorts the files, and orders each file's
 * records by line (docs/design.md#deterministic-pages). rg prints a file's lines in order but files
 * in any order, so files are sorted and lines only when they must be: when two raw paths display the
 * same (lossy decoding) and merge, or a file's records came apart. Ties keep rg's order.
 */
export function showMatches({ bytes, records }: Pick<ParsedOutput, 'bytes' | 'records'>, shown: (file: string) => string): ShownMatches {
  const { runs } = records
  // One run in line order (a streamed result's rest gives one file at a time) is one file as it is.
  const only = runs.length === 1 ? runs[0]! : undefined
  if (only?.inLineOrder === true) {
    const files = [runFile(shown(only.path), only)]
    return { bytes, records, files, total: records.count, escaped: records.escapedLines.size, lossy: lossyIn(only) }
  }
  // Runs sort by display path, then by arrival: each key is its path, a NUL (which sorts before any
  // character a path shows) and the run's index in four bytes. A native sort of strings costs a
  // fraction of a comparator's, and equal paths end up side by side, ready to merge.
  const keys = runs.map((run, index) => `${shown(run.path)}\0${indexText(index)}`).sort()
  const files: ShownFile[] = []
  let lossy = 0
  const samePath = (key: string | undefined, path: string): boolean =>
    key !== undefined && key.length === path.length + INDEX_SUFFIX && key.startsWith(path)
  for (let at = 0; at < keys.length;) {
    const path = keys[at]!.slice(0, -INDEX_SUFFIX)
    const first = runs[indexOfKey(keys[at++]!)]!
    if (first.inLineOrder && !samePath(keys[at], path)) {
      lossy += lossyIn(first)
      files.push(runFile(path, first))
      continue
    }
    const merged = [first]
    while (samePath(keys[at], path)) merged.push(runs[indexOfKey(keys[at++]!)]!)
    const size = merged.reduce((sum, run) => sum + run.count, 0)
    lossy += merged.reduce((sum, run) => sum + lossyIn(run), 0)
    const order = new Uint32Array(size)
    let next = 0
    for (const run of merged) {
      for (let i = 0, record = run.start; i < run.count; i += 1, record = recordAfter(bytes, records, record)) order[next++] = record
    }
    sortByLine(bytes, order)
    const oneSource = merged.every((run) => run.path === first.path && !run.pathReplaced)
    files.push({ path, size, first: order[0]!, order, ...(oneSource ? { source: first.path } : {}) })
  }
  return { bytes, records, files, total: records.count, escaped: records.escapedLines.size, lossy }
}

/**
 * A file of one run in line order, shown as `path`: its entry written out, not spread (spreading one
 * built before took ~0.8 µs a file, 16 ms a call for a streamed result of 20,740 files).
 */
function runFile(path: string, run: RecordRun): ShownFile {
  return run.pathReplaced
    ? { path, size: run.count, first: run.start, order: undefined }
    : { path, size: run.count, first: run.start, order: undefined, source: run.path }
}

/**
 * A streamed result's first files, as `showMatches` shows them, with the whole result's counts: all a
 * page needs (docs/design.md#results-bigger-than-memory).
 */
export function showStreamedMatches(streamed: StreamedRecords, shown: (file: string) => string): ShownMatches {
  const { total, lossy, escaped, files } = streamed
  return { ...showMatches(streamed.page, shown), total, lossy, escaped, fileCount: files }
}

/**
 * A run's matches whose line or path holds replaced bytes: every one when its path does, else those
 * whose line does. What a path is shown from (the workdir, the directory searched) never counts: it
 * is the call's own text, so a U+FFFD in it is a character, not a replaced byte.
 */
function lossyIn(run: RecordRun): number {
  return run.pathReplaced ? run.count : run.lossyLines
}

// A sort key's NUL and index.
const INDEX_SUFFIX = 5

/** An index as four one-byte characters, most significant first: they sort as the number does. */
export function indexText(index: number): string {
  return String.fromCharCode(index >>> 24, (index >>> 16) & 0xff, (index >>> 8) & 0xff, index & 0xff)
}

/** The index `indexText` put at the end of a sort key. */
export function indexOfKey(key: string): number {
  let index = 0
  for (let at = key.length - 4; at < key.length; at += 1) index = index * 0x100 + key.charCodeAt(at)
  return index
}

/** Sorts one file's records by line number, keeping rg's order for equal lines. */
function sortByLine(bytes: Buffer, order: Uint32Array): void {
  const lines = Array.from(order, (record) => lineNumberOf(bytes, record))
  if (lines.every((line, i) => i === 0 || lines[i - 1]! <= line)) return
  // Array#sort is stable, and sorting positions keeps each line number beside its record.
  const positions = Array.from(order, (_, i) => i).sort((a, b) => lines[a]! - lines[b]!)
  order.set(positions.map((i) => order[i]!))
}

/** The record after `record` in the bytes. */
export function recordAfter(bytes: Buffer, records: RecordTable, record: number): number {
  return textEnd(bytes, records, markOf(bytes, record) + 1)
}

/** A file's `index`th record in line order, given the one before it (`previous`, for `index` > 0). */
export function nextRecord(matches: ShownMatches, file: ShownFile, index: number, previous: number): number {
  if (file.order !== undefined) return file.order[index]!
  return index === 0 ? file.first : recordAfter(matches.bytes, matches.records, previous)
}

/** A file's first `count` records in line order. */
export function recordsOf(matches: ShownMatches, file: ShownFile, count = file.size): number[] {
  const list: number[] = []
  for (let i = 0, record = -1; i < count; i += 1) list.push((record = nextRecord(matches, file, i, record)))
  return list
}

/** The shown line of one record. */
export function shownLine(matches: ShownMatches, record: number): string {
  const { bytes, records } = matches
  const mark = markOf(bytes, record)
  if ((bytes[mark]! & WINDOW) !== 0) return records.windows.get(record)!.text
  if ((bytes[mark]! & ESCAPED) !== 0) return records.escapedLines.get(record)!
  return bytes.toString('utf8', mark + 1, textEnd(bytes, records, mark + 1))
}

/** Every match as an object, in page order: for a host that reads `value.matches`, built when it does. */
export function listMatches(matches: ShownMatches): GrepMatch[] {
  return matches.files.flatMap((file) =>
    recordsOf(matches, file).map((record) => ({
      path: file.path,
      lineNumber: lineNumberOf(matches.bytes, record),
      line: shownLine(matches, record),
      lineCut: (flagsOf(matches.bytes, record) & CUT) !== 0,
      ...windowOf(matches, record),
    })),
  )
}

/** A windowed record's first column, for `GrepMatch.lineFrom`. */
function windowOf(matches: ShownMatches, record: number): { lineFrom?: number } {
  const window = matches.records.windows.get(record)
  return window === undefined ? {} : { lineFrom: window.from }
}
