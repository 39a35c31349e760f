// rg's matched lines, compacted to what a row shows and kept end to end: no object, no index per match.

/** A record's line shows less than the file's line: rg previewed it or the byte budget cut it. */
export const CUT = 1
/** The shown line holds control characters; its escaped text is in `escapedLines`, and none is kept here. */
export const ESCAPED = 2
/** The line number's digits are not what `Line N` prints (a leading zero, or more than 15 digits). */
export const ODD_NUMBER = 4
/** A context line rg printed around a match (`-A`/`-B`/`-C`), not a match. */
export const CONTEXT = 8
/** A cut line shown as a window around its first match instead of its head; the window is in `windows`. */
export const WINDOW = 16

/** One run of consecutive records from one file, as rg printed them. */
export interface RecordRun {
  /** The file's path as rg printed it, decoded. */
  path: string
  /** Its first record. */
  start: number
  /** How many records it has. */
  count: number
  /** Its line numbers never decrease. */
  inLineOrder: boolean
  /** Records whose shown line holds bytes that were not valid UTF-8 (shown as U+FFFD). */
  lossyLines: number
  /** The path rg printed held bytes that were not valid UTF-8: it shows U+FFFD for them, and cannot name the file. */
  pathReplaced: boolean
  /** Records that are context lines (`CONTEXT`), not matches. */
  contextLines: number
}

const NUL = 0x00
// A record's digits end at a byte that says how to show it: MARK with its flags. Only ASCII digits
// precede it, so any byte from MARK up is unambiguous there.
/** The mark byte's high bits; its low five carry the flags. */
export const MARK = 0xe0

/** What a `WINDOW` record shows: part of its line around the first match (docs/design.md#a-long-line-shows-its-first-match). */
export interface LineWindow {
  /** The part shown, control characters escaped. */
  text: string
  /** The 1-based byte columns of the line it starts and ends at. */
  from: number
  to: number
}

/**
 * Matched lines in the parser's bytes, each compacted to what its row shows: a NUL, the line number's
 * digits, a mark byte carrying its flags, and the line as shown (cut, without its CR or rg's preview
 * marker; nothing for an escaped line). A record is named by its offset, and ends where the next
 * NUL starts (a shown line holds none: it would have been escaped), so a match costs only the bytes it
 * shows. Runs tie records to the path rg printed before them.
 */
export class RecordTable {
  count = 0
  /** Where the last record ends. */
  end = 0
  /** Escaped text of the records flagged `ESCAPED`, by record. */
  readonly escapedLines = new Map<number, string>()
  /** The records whose shown line holds bytes that were not valid UTF-8 (most outputs have none). */
  readonly replacedLines = new Set<number>()
  /** Windows of the records flagged `WINDOW`, by record; their own bytes still hold the head rg printed. */
  readonly windows = new Map<number, LineWindow>()
  readonly runs: RecordRun[] = []

  /** Starts a run of records from the file rg printed as `path` (`pathReplaced`: with bytes replaced), with the record at `start`. */
  startRun(path: string, start: number, pathReplaced: boolean): RecordRun {
    const run = { path, start, count: 0, inLineOrder: true, lossyLines: 0, pathReplaced, contextLines: 0 }
    this.runs.push(run)
    return run
  }
}

/**
 * Writes a record at `at` from rg's digits and line, both further on in `bytes` (so copying forward
 * never reads a byte it has overwritten); returns where it ends. A line is moved by `copyWithin`
 * (a memmove), which took a 5,000,000-line move from ~400 to ~170 ms against a loop in JS; only a
 * few bytes are cheaper to move by hand.
 */
export function writeRecord(
  bytes: Buffer,
  at: number,
  digitsStart: number,
  digitsEnd: number,
  flags: number,
  textStart: number,
  textEnd: number,
): number {
  bytes[at++] = NUL
  for (let i = digitsStart; i < digitsEnd; i += 1) bytes[at++] = bytes[i]!
  bytes[at++] = MARK | flags
  if ((flags & ESCAPED) !== 0) return at
  if (textEnd - textStart > 16) {
    bytes.copyWithin(at, textStart, textEnd)
    return at + textEnd - textStart
  }
  for (let i = textStart; i < textEnd; i += 1) bytes[at++] = bytes[i]!
  return at
}

/** Where a record's mark is: after its NUL and digits. */
export function markOf(bytes: Buffer, record: number): number {
  let at = record + 1
  while (bytes[at]! < MARK) at += 1
  return at
}

/** A record's flags. */
export function flagsOf(bytes: Buffer, record: number): number {
  return bytes[markOf(bytes, record)]! & ~MARK
}

/** Where the line that starts at `textStart` ends: at the next record, or the table's end. */
export function textEnd(bytes: Buffer, table: RecordTable, textStart: number): number {
  let at = textStart
  while (at < table.end && bytes[at] !== NUL) at += 1
  return at
}

/** A record's line number, as `Number` reads its digits. */
export function lineNumberOf(bytes: Buffer, record: number): number {
  const mark = markOf(bytes, record)
  if ((bytes[mark]! & ODD_NUMBER) !== 0) return Number(bytes.toString('latin1', record + 1, mark))
  let value = 0
  for (let at = record + 1; at < mark; at += 1) value = value * 10 + bytes[at]! - 0x30
  return value
}
