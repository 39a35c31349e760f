// The rows of a grep result: a header line per file, then one `Line N: text` row per match.
import { nextRecord, recordsOf, shownLine, type ShownFile, type ShownMatches } from './matches.js'
import { CONTEXT, CUT, ESCAPED, lineNumberOf, MARK, markOf, ODD_NUMBER, textEnd, WINDOW } from './records.js'

/** A file the page or spill shows, and how many of its first matches. */
export interface ShownGroup {
  /** Index into `ShownMatches.files`. */
  file: number
  count: number
}

/**
 * One record's row as the model reads it. A cut line is marked before the colon, where a line's own
 * text cannot reach: a marker after the text could be forged by a line that ends in it. A context
 * line has `-` where a match has `:`, as rg marks them.
 */
export function formatRow(matches: ShownMatches, record: number): string {
  const flags = matches.bytes[markOf(matches.bytes, record)]!
  return `Line ${lineNumberOf(matches.bytes, record)}${cutLabel(matches, record, ' ')}${(flags & CONTEXT) !== 0 ? '-' : ':'} ${shownLine(matches, record)}`
}

/**
 * What marks a cut row, after `space`: `(cut)` for a line's head, `(cut; columns A-B)` for a window
 * around its first match (docs/design.md#a-long-line-shows-its-first-match); nothing for a whole line.
 */
export function cutLabel(matches: ShownMatches, record: number, space: string): string {
  const flags = matches.bytes[markOf(matches.bytes, record)]!
  if ((flags & WINDOW) !== 0) {
    const { from, to } = matches.records.windows.get(record)!
    return `${space}(cut; columns ${from}-${to})`
  }
  return (flags & CUT) !== 0 ? `${space}(cut)` : ''
}

/** The UTF-8 bytes of `formatRow(matches, record)`, counted without building it. */
export function rowBytes(matches: ShownMatches, record: number): number {
  const { bytes, records } = matches
  const mark = markOf(bytes, record)
  const flags = bytes[mark]!
  if ((flags & WINDOW) !== 0) return Buffer.byteLength(formatRow(matches, record))
  const number = (flags & ODD_NUMBER) !== 0 ? String(lineNumberOf(bytes, record)).length : mark - record - 1
  const line = (flags & ESCAPED) !== 0 ? Buffer.byteLength(records.escapedLines.get(record)!) : textEnd(bytes, records, mark + 1) - mark - 1
  return ROW_FIXED_BYTES + number + ((flags & CUT) !== 0 ? CUT_MARK.length : 0) + line
}

/** File groups as text, for the page: a header line per file, then its rows; a blank line between files. */
export function formatGroups(matches: ShownMatches, groups: readonly ShownGroup[]): string {
  const lines: string[] = []
  groups.forEach(({ file, count }, index) => {
    if (index > 0) lines.push('')
    const shown = matches.files[file]!
    lines.push(shown.path, ...recordsOf(matches, shown, count).map((record) => formatRow(matches, record)))
  })
  return lines.join('\n')
}

const LINE = 'Line '
const CUT_MARK = Buffer.from(' (cut)')
const ROW_FIXED_BYTES = LINE.length + ': '.length
// What opens a spilled row, `\nLine `, and what follows its number, `: `, as big-endian words that
// `writeRows` stores whole: a loop over their bytes was its costliest line.
const ROW_OPENING = Buffer.from(`\n${LINE}`)
const ROW_OPENING_HEAD = ROW_OPENING.readUInt32BE(0)
const ROW_OPENING_TAIL = ROW_OPENING.readUInt16BE(4)
const COLON_SPACE = Buffer.from(': ').readUInt16BE(0)
// Blocks of the complete result as the spill store writes them: large enough that a write costs
// little per byte, small enough that a million matches never sit in memory as text.
const BLOCK_BYTES = 1 << 18
// A row is at most its record's bytes (NUL, digits, mark, line) and 12 more: the newline, `Line `,
// ` (cut)` and `: ` less the NUL and the mark.
const ROW_OVER_RECORD = 12
// A line this long or shorter is copied while its end is looked for; a longer one is found by memchr.
const SHORT_LINE_BYTES = 128

/** Where `groupBlocks` is: the file's next record, its index, and the bytes of the block in use. */
interface Cursor {
  index: number
  record: number
  used: number
}

/** What `groupBlocks` writes after the first files, and how it reports on them. */
export interface GroupBlocksOptions {
  /** Set before each block is yielded to the rows yielded so far, that block's included. */
  progress?: { rows: number }
  /**
   * More files after `matches`'s, each asked for once the last is written: a streamed result's rest
   * (docs/design.md#results-bigger-than-memory). They fill the same blocks, so a result of a million
   * small files costs one block, not one a file.
   */
  rest?: Iterable<ShownMatches>
}

/**
 * Every file's group as blocks of UTF-8 bytes, exactly `formatGroups` of all of them, for the spill.
 * One buffer is refilled for each block (the store is done with a block before it asks for the
 * next), and rows are copied from the records' bytes: a million matches cost no string each. Every
 * block ends at the end of a line.
 */
export function* groupBlocks(first: ShownMatches, { progress = { rows: 0 }, rest = [] }: GroupBlocksOptions = {}): Generator<Uint8Array> {
  const block = Buffer.allocUnsafe(BLOCK_BYTES)
  const cursor: Cursor = { index: 0, record: -1, used: 0 }
  let rows = progress.rows
  let separated = false
  const flush = (bytes: Buffer): Buffer => {
    progress.rows = rows
    return bytes
  }
  for (const matches of chain(first, rest)) {
    for (const file of matches.files) {
      const path = Buffer.from(`${separated ? '\n\n' : ''}${file.path}`)
      separated = true
      if (cursor.used > 0 && cursor.used + path.length > BLOCK_BYTES) {
        yield flush(block.subarray(0, cursor.used))
        cursor.used = 0
      }
      if (path.length > BLOCK_BYTES) yield flush(path)
      else cursor.used += path.copy(block, cursor.used)
      cursor.index = 0
      cursor.record = nextRecord(matches, file, 0, -1)
      for (;;) {
        const from = cursor.index
        const stopped = writeRows(matches, file, block, cursor)
        rows += cursor.index - from
        if (!stopped) break
        const { record } = cursor
        if (!isRare(matches, record)) {
          // The block is full.
          yield flush(block.subarray(0, cursor.used))
          cursor.used = 0
          continue
        }
        const row = Buffer.from(`\n${formatRow(matches, record)}`)
        if (cursor.used > 0 && cursor.used + row.length > BLOCK_BYTES) {
          yield flush(block.subarray(0, cursor.used))
          cursor.used = 0
        }
        rows += 1
        if (row.length > BLOCK_BYTES) yield flush(row)
        else cursor.used += row.copy(block, cursor.used)
        cursor.index += 1
        if (cursor.index < file.size) cursor.record = nextRecord(matches, file, cursor.index, record)
      }
    }
  }
  if (cursor.used > 0) yield flush(block.subarray(0, cursor.used))
}

/** `first`, then each of `rest`, asked for only when it is reached. */
function* chain<T>(first: T, rest: Iterable<T>): Generator<T> {
  yield first
  yield* rest
}

/** A row that goes through a string: escaped, an odd line number, a window, or larger than a block. */
function isRare({ bytes, records }: ShownMatches, record: number): boolean {
  const mark = markOf(bytes, record)
  return (
    (bytes[mark]! & (ESCAPED | ODD_NUMBER | WINDOW)) !== 0 || textEnd(bytes, records, mark + 1) - record + ROW_OVER_RECORD > BLOCK_BYTES
  )
}

/**
 * Writes `file`'s rows into `block` from `cursor`, and moves the cursor past them; returns true when it
 * stopped before the file's end, at a rare row or a full block. A plain function, not part of the
 * generator, since only a plain function's loop is optimized while it runs: the first call's million
 * rows would otherwise all run unoptimized.
 */
function writeRows(matches: ShownMatches, file: ShownFile, block: Buffer, cursor: Cursor): boolean {
  const { bytes, records } = matches
  const { order, size } = file
  const end = records.end
  // A short line is copied four bytes a step through DataViews, and its end found in the same pass:
  // a loop in JS a byte at a time cost twice as much, and a native copy's or search's call more than
  // the work (~30–110 ns a call, a call a row).
  const from = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
  const to = new DataView(block.buffer, block.byteOffset, block.length)
  let { used, index, record } = cursor
  while (index < size) {
    let mark = record + 1
    while (bytes[mark]! < MARK) mark += 1
    const flags = bytes[mark]!
    // A row whose line could be any length up to SHORT_LINE_BYTES must fit before it is begun.
    if ((flags & (ESCAPED | ODD_NUMBER | WINDOW)) !== 0 || mark - record + SHORT_LINE_BYTES + ROW_OVER_RECORD > BLOCK_BYTES - used) break
    const rowStart = used
    // The row: a newline, `Line `, the digits, ` (cut)` when cut, `: `, the line. (Only the dsh grep
    // spills through here, and it never asks rg for context lines.)
    to.setUint32(used, ROW_OPENING_HEAD)
    to.setUint16(used + 4, ROW_OPENING_TAIL)
    used += 6
    for (let at = record + 1; at < mark; at += 1) block[used++] = bytes[at]!
    if ((flags & CUT) !== 0) for (let k = 0; k < CUT_MARK.length; k += 1) block[used++] = CUT_MARK[k]!
    to.setUint16(used, COLON_SPACE)
    used += 2
    // The line ends at the next record's NUL, or at the records' end.
    let at = mark + 1
    const short = Math.min(end, at + SHORT_LINE_BYTES)
    for (; at + 4 <= short; at += 4, used += 4) {
      const word = from.getUint32(at)
      if (hasZeroByte(word)) break
      to.setUint32(used, word)
    }
    for (; at < short && bytes[at] !== 0; at += 1) block[used++] = bytes[at]!
    if (at === short && at < end && bytes[at] !== 0) {
      // A longer line: the rest of it by memchr and one copy, if the row fits the block; else the
      // row is begun again in the next.
      let stop = bytes.indexOf(0, at)
      if (stop === -1 || stop > end) stop = end
      if (stop - record + ROW_OVER_RECORD > BLOCK_BYTES - rowStart) {
        used = rowStart
        break
      }
      used += bytes.copy(block, used, at, stop)
      at = stop
    }
    index += 1
    // Records of one run lie end to end: the next starts where this one stops.
    record = order === undefined ? at : index < size ? order[index]! : at
  }
  cursor.used = used
  cursor.index = index
  cursor.record = record
  return index < size
}

/** Some byte of the word is 0: one that borrows into its top bit when 1 is taken from it, and had none set. */
function hasZeroByte(word: number): boolean {
  return ((word - 0x01010101) & ~word & 0x80808080) !== 0
}
