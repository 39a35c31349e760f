// Grep's content mode: every matched and context line as an entry, grouped by file, gaps marked `--`.
import { nextRecord, shownLine, type ShownMatches } from '../engine/grep/matches.js'
import type { PageRecord } from '../engine/grep/windows.js'
import { CONTEXT, flagsOf, lineNumberOf } from '../engine/grep/records.js'
import { cutLabel, formatRow } from '../engine/grep/rows.js'

/** How rows are written: with their line numbers (`-n`, the default), and with gaps marked (context was asked for). */
export interface RowStyle {
  numbered: boolean
  gaps: boolean
}

/** How many of the records are matches and how many context lines. */
export function countContext(matches: ShownMatches): { matchLines: number; contextLines: number } {
  let contextLines = 0
  for (const file of matches.files) {
    for (let i = 0, record = -1; i < file.size; i += 1) {
      record = nextRecord(matches, file, i, record)
      if ((flagsOf(matches.bytes, record) & CONTEXT) !== 0) contextLines += 1
    }
  }
  return { matchLines: matches.total - contextLines, contextLines }
}

/** One row: `Line 12: text` for a match, `Line 11- text` for context; without `-n`, what follows the number. */
function rowText(matches: ShownMatches, record: number, numbered: boolean): string {
  if (numbered) return formatRow(matches, record)
  const flags = flagsOf(matches.bytes, record)
  return `${cutLabel(matches, record, '')}${(flags & CONTEXT) !== 0 ? '-' : ':'} ${shownLine(matches, record)}`
}

/**
 * The entries of the complete result from the `start`th record on, each a row with what goes before
 * it: the file's path when the row opens a file (or the page), a blank line between files, and `--`
 * where a file's rows skip lines. The first entry opens the page, so it names its file.
 */
export function* contentEntries(matches: ShownMatches, start: number, style: RowStyle, after = false): Generator<string> {
  let skip = start
  // `after`: entries came before these (a streamed result's earlier files), so the first file is set off too.
  let first = !after
  for (const file of matches.files) {
    if (skip >= file.size) {
      skip -= file.size
      continue
    }
    let previousLine = -1
    for (let i = 0, record = -1; i < file.size; i += 1) {
      record = nextRecord(matches, file, i, record)
      if (i < skip) continue
      const line = lineNumberOf(matches.bytes, record)
      const opens = i === skip
      const head = first ? `${file.path}\n` : opens ? `\n\n${file.path}\n` : style.gaps && line !== previousLine + 1 ? '\n--\n' : '\n'
      previousLine = line
      first = false
      yield head + rowText(matches, record, style.numbered)
    }
    skip = 0
  }
}

/** The `count` records from the `start`th on, each with its file: what a page of entries shows. */
export function pageRecords(matches: ShownMatches, start: number, count: number): PageRecord[] {
  const shown: PageRecord[] = []
  let skip = start
  for (const file of matches.files) {
    for (let i = 0, record = -1; i < file.size && shown.length < count; i += 1) {
      record = nextRecord(matches, file, i, record)
      if (i >= skip) shown.push({ file, record })
    }
    skip = Math.max(0, skip - file.size)
  }
  return shown
}
