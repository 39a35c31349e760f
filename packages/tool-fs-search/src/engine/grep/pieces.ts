// A grep result larger than memory: its records in pieces on the scratch file, the page's candidates in memory.
import type { SpillScratch } from '@dsh/core'
import { indexOfKey, indexText } from './matches.js'
import { RecordTable } from './records.js'

/** The page budgets that decide which files can still reach the page. */
export interface PieceBudget {
  maxMatches: number
  maxPerFile: number
}

/** The records of one file, or of a file's part, as they left memory. */
interface Piece {
  /** Arrival order: ties between equal display paths keep it, as `showMatches` does. */
  seq: number
  path: string
  pathReplaced: boolean
  display: string
  count: number
  inLineOrder: boolean
  lossyLines: number
  contextLines: number
  /** The flush it left memory in: its region of the scratch file, which holds its pieces in display order. */
  flush: number
  /** Where its records are on the scratch file, and its side table (escaped and replaced lines; length 0: none). */
  offset: number
  length: number
  sideOffset: number
  sideLength: number
  /** Its records in memory, while it may reach the page. */
  held?: HeldRecords | undefined
}

/** Records in their own buffer, with their escaped lines and replaced-byte lines by offset within it. */
interface HeldRecords {
  bytes: Buffer
  escaped: [number, string][]
  replaced: number[]
}

/** Records read back as one parsed output: what `showMatches` takes. */
export interface LoadedRecords {
  bytes: Buffer
  records: RecordTable
}

/** A streamed result at its end: the page's candidates, the true totals, and the rest in order. */
export interface StreamedRecords {
  /** The files that can reach the page, every one of their records, as one parsed output. */
  page: LoadedRecords
  total: number
  /** Matches whose line or path holds replaced bytes (`showMatches`'s `lossy`). */
  lossy: number
  escaped: number
  /** Distinct display paths in the whole result. */
  files: number
  /** Context lines among `total` (rg's `-A`/`-B`/`-C`). */
  contextLines: number
  /**
   * The files after the page's, in display order, each read back from the scratch file as it is
   * asked for; undefined when some were dropped and there is no scratch file to read them from.
   */
  rest: (() => Generator<LoadedRecords>) | undefined
  /**
   * Every file in display order, each loaded when asked (from memory or the scratch file); undefined
   * when some were dropped and there is no scratch file to read them from.
   */
  all: (() => Generator<{ display: string; load: () => LoadedRecords }>) | undefined
  /**
   * The files that hold records `[start, start + count)` of the result in display order, loaded, and
   * how many records come before them: a page at any offset, without the records it skips
   * (docs/design.md#results-bigger-than-memory). Without a scratch file they must still be in memory:
   * the budget kept every file up to `start + count`.
   */
  window: (start: number, count: number) => { records: LoadedRecords; before: number }
}

/**
 * Where a grep result's records go once they pass what memory holds (docs/design.md#results-bigger-than-memory).
 * Every piece (a run of one file's records) is appended to the scratch file as it leaves the parser's
 * buffer, with an index entry of a few fields; the pieces of the files that sort first, enough to fill
 * a page, are also kept in memory. The page is chosen from them, so it never waits on the disk.
 */
export class GrepPieces {
  readonly #scratch: SpillScratch | undefined
  readonly #budget: PieceBudget
  readonly #display: (path: string) => string
  /** Each flush's pieces in display order (arrival among equal paths), as `writeSorted` wrote them. */
  readonly #flushed: Piece[][] = []
  #pieceCount = 0
  #candidates: Piece[] = []
  #dropped = false
  #total = 0
  #lossy = 0
  #escaped = 0
  #contextLines = 0
  readonly #files = new Set<string>()

  /** `display`: how a path rg printed shows, which is what files sort by. */
  constructor(scratch: SpillScratch | undefined, budget: PieceBudget, display: (path: string) => string) {
    this.#scratch = scratch
    this.#budget = budget
    this.#display = display
  }

  /** Takes every record of `table` (in `bytes`): the caller reuses both once this returns. */
  add(bytes: Buffer, table: RecordTable): void {
    const escaped = [...table.escapedLines]
    const replaced = [...table.replacedLines]
    let e = 0
    let r = 0
    const added: { piece: Piece; held: HeldRecords }[] = []
    const flush = this.#flushed.length
    table.runs.forEach((run, index) => {
      const end = table.runs[index + 1]?.start ?? table.end
      const held: HeldRecords = { bytes: bytes.subarray(run.start, end), escaped: [], replaced: [] }
      for (; e < escaped.length && escaped[e]![0] < end; e += 1) held.escaped.push([escaped[e]![0] - run.start, escaped[e]![1]])
      for (; r < replaced.length && replaced[r]! < end; r += 1) held.replaced.push(replaced[r]! - run.start)
      const piece: Piece = {
        seq: this.#pieceCount++,
        path: run.path,
        pathReplaced: run.pathReplaced,
        display: this.#display(run.path),
        count: run.count,
        inLineOrder: run.inLineOrder,
        lossyLines: run.lossyLines,
        contextLines: run.contextLines,
        flush,
        offset: -1,
        length: end - run.start,
        sideOffset: -1,
        sideLength: 0,
      }
      this.#files.add(piece.display)
      this.#total += piece.count
      this.#lossy += piece.pathReplaced ? piece.count : piece.lossyLines
      this.#escaped += held.escaped.length
      this.#contextLines += run.contextLines
      added.push({ piece, held })
    })
    // Sorted once: the scratch file takes them in this order, and the page's line is drawn through it.
    const sorted = sortedByDisplay(added, (item) => item.piece)
    if (this.#scratch !== undefined) writeSorted(this.#scratch, sorted)
    const pieces = sorted.map(({ piece }) => piece)
    this.#flushed.push(pieces)
    this.#trim(pieces)
    // Only the pieces that may reach the page are copied out of the parser's buffer.
    const kept = new Set(this.#candidates)
    for (const { piece, held } of added) if (kept.has(piece)) piece.held = { ...held, bytes: Buffer.from(held.bytes) }
  }

  /**
   * Keeps the files that sort first while the ones before them could not yet fill a page (each
   * counting its first `maxPerFile` matches, as the page does once it cannot hold everything), and
   * drops the rest from memory. A dropped file never comes back: files only arrive, so the line only
   * moves up. `arrived` is in display order, as the candidates are kept: the two are merged only as
   * far as the page needs, and the candidates, which arrived first, go first among equal paths.
   */
  #trim(arrived: readonly Piece[]): void {
    const candidates = this.#candidates
    let c = 0
    let a = 0
    // The next piece in display order; `<` and `<=` on strings compare UTF-16 code units, as the sort does.
    const next = (): Piece | undefined =>
      c < candidates.length && (a === arrived.length || candidates[c]!.display <= arrived[a]!.display) ? candidates[c++] : arrived[a++]
    const kept: Piece[] = []
    let filled = 0
    let piece = next()
    while (piece !== undefined && filled < this.#budget.maxMatches) {
      const display = piece.display
      let size = 0
      for (; piece !== undefined && piece.display === display; piece = next()) {
        size += piece.count
        kept.push(piece)
      }
      filled += Math.min(size, this.#budget.maxPerFile)
    }
    if (piece !== undefined) {
      this.#dropped = true
      piece.held = undefined
      for (const rest of [candidates.slice(c), arrived.slice(a)]) for (const dropped of rest) dropped.held = undefined
    }
    this.#candidates = kept
  }

  /** The result once the parser is done. */
  finish(): StreamedRecords {
    const page = joinRecords(
      [...this.#candidates].sort((a, b) => a.seq - b.seq),
      (piece) => piece.held!,
    )
    const onPage = new Set(this.#candidates.map((piece) => piece.display))
    const scratch = this.#scratch
    const flushes = this.#flushed.length
    let inOrder: [string, Piece[]][] | undefined
    // Every file in display order with its pieces in arrival order, merged from the flushes when first asked for.
    const groups = (): [string, Piece[]][] => (inOrder ??= mergeFlushes(this.#flushed))
    const complete = scratch !== undefined || !this.#dropped
    const load = (pieces: Piece[]): LoadedRecords =>
      joinRecords(
        [...pieces].sort((a, b) => a.seq - b.seq),
        (piece) => piece.held ?? readPiece(scratch!, piece),
      )
    return {
      page,
      total: this.#total,
      lossy: this.#lossy,
      escaped: this.#escaped,
      files: this.#files.size,
      contextLines: this.#contextLines,
      all: complete
        ? function* () {
            for (const [display, pieces] of groups()) yield { display, load: () => load(pieces) }
          }
        : undefined,
      window: (start, count) => {
        let before = 0
        let taken = 0
        const chosen: Piece[] = []
        for (const [, pieces] of groups()) {
          const size = pieces.reduce((sum, piece) => sum + piece.count, 0)
          if (chosen.length === 0 && before + size <= start) {
            before += size
            continue
          }
          if (before + taken >= start + count) break
          chosen.push(...pieces)
          taken += size
        }
        return { records: load(chosen), before }
      },
      rest:
        scratch === undefined && this.#dropped
          ? undefined
          : function* () {
              // Each flush's pieces are read in the order they were written, through a window of its
              // own: a file of one piece (most) is used where it lies in the window, since the reader is
              // done with a file before it asks for the next. The pieces of one file each need their own.
              const windows: FlushWindow[] = []
              const bytes = windowBytes(flushes)
              for (const [display, pieces] of groups()) {
                if (onPage.has(display)) continue
                yield joinRecords(pieces, (piece) => {
                  const window = (windows[piece.flush] ??= new FlushWindow(scratch!, bytes))
                  return readPiece(scratch!, piece, window, pieces.length > 1)
                })
              }
            },
    }
  }
}

/** Pieces' records end to end in one buffer, each piece a run, as the parser would have kept them. */
function joinRecords(pieces: readonly Piece[], recordsOf: (piece: Piece) => HeldRecords): LoadedRecords {
  const held = pieces.map(recordsOf)
  // One piece (most files) is used where it was read: no copy.
  const bytes = held.length === 1 ? held[0]!.bytes : Buffer.concat(held.map((h) => h.bytes))
  const records = new RecordTable()
  let at = 0
  pieces.forEach((piece, index) => {
    const { escaped, replaced, bytes: own } = held[index]!
    const run = records.startRun(piece.path, at, piece.pathReplaced)
    run.count = piece.count
    run.inLineOrder = piece.inLineOrder
    run.lossyLines = piece.lossyLines
    run.contextLines = piece.contextLines
    for (const [offset, text] of escaped) records.escapedLines.set(at + offset, text)
    for (const offset of replaced) records.replacedLines.add(at + offset)
    records.count += piece.count
    at += own.length
  })
  records.end = at
  return { bytes, records }
}

// Bytes a flush's pieces are written in, and the most each flush's window reads at a time.
const BLOCK_BYTES = 1 << 18

/**
 * Writes a flush's pieces, given in display order (arrival among equal paths), gathered into blocks,
 * then their side tables, and sets where each lies. The rest of a result is read back in display order, so
 * each flush's region is then read front to back, a block a read, instead of a read a piece
 * (docs/design.md#results-bigger-than-memory).
 */
function writeSorted(scratch: SpillScratch, sorted: readonly { piece: Piece; held: HeldRecords }[]): void {
  const block = Buffer.allocUnsafe(BLOCK_BYTES)
  let base = scratch.size
  let used = 0
  const write = (bytes: Buffer): void => {
    scratch.append(bytes)
    base = scratch.size
    used = 0
  }
  for (const { piece, held } of sorted) {
    if (used + held.bytes.length > BLOCK_BYTES && used > 0) write(block.subarray(0, used))
    piece.offset = base + used
    if (held.bytes.length > BLOCK_BYTES) write(held.bytes)
    else used += held.bytes.copy(block, used)
  }
  if (used > 0) write(block.subarray(0, used))
  for (const { piece, held } of sorted) {
    if (held.escaped.length === 0 && held.replaced.length === 0) continue
    const side = Buffer.from(JSON.stringify([held.escaped, held.replaced]))
    piece.sideOffset = scratch.append(side)
    piece.sideLength = side.length
  }
}

/**
 * A flush's region of the scratch file read front to back: a read fills the window from where it is
 * asked, so pieces asked for in the order they were written cost a read a window. A piece larger than
 * the window is read into a buffer of its own, not kept: windows stay their size, however large the
 * pieces. Bytes it returns from the window are valid until the next read, unless asked for as `own`.
 */
class FlushWindow {
  readonly #scratch: SpillScratch
  readonly #buffer: Buffer
  #start = 0
  #length = 0

  constructor(scratch: SpillScratch, bytes: number) {
    this.#scratch = scratch
    this.#buffer = Buffer.allocUnsafe(bytes)
  }

  read(offset: number, length: number, own: boolean): Buffer {
    if (length > this.#buffer.length) {
      const read = this.#scratch.read(offset, length)
      return Buffer.from(read.buffer, read.byteOffset, read.length)
    }
    if (offset < this.#start || offset + length > this.#start + this.#length) {
      this.#start = offset
      // The window reads on to the file's end at most: a flush's side tables and later flushes follow.
      this.#length = Math.max(length, Math.min(this.#buffer.length, this.#scratch.size - offset))
      const read = this.#scratch.read(offset, this.#length, this.#buffer)
      // A store may read into a buffer of its own.
      if (read.buffer !== this.#buffer.buffer || read.byteOffset !== this.#buffer.byteOffset) this.#buffer.set(read)
    }
    const bytes = this.#buffer.subarray(offset - this.#start, offset - this.#start + length)
    return own ? Buffer.from(bytes) : bytes
  }
}

/**
 * The bytes of each flush's window when `flushes` are read back at once: a block each while they fit
 * in `WINDOWS_BYTES`, less for more (a result of many times the raw cap), and none once each would
 * hold less than `MIN_WINDOW_BYTES`: then each piece is read alone, as memory bounded at any size asks.
 */
export function windowBytes(flushes: number): number {
  const each = Math.min(BLOCK_BYTES, Math.floor(WINDOWS_BYTES / Math.max(1, flushes)))
  return each < MIN_WINDOW_BYTES ? 0 : each
}
// What every flush's window together may hold, and the least one holds (a read a few records).
const WINDOWS_BYTES = 16 << 20
const MIN_WINDOW_BYTES = 16 << 10

/**
 * A piece's records and side table, read back from the scratch file into a buffer of their own, or
 * through `window`, copied out of it when `own` (the caller holds them past the window's next read).
 */
function readPiece(scratch: SpillScratch, piece: Piece, window?: FlushWindow, own = false): HeldRecords {
  const read = window === undefined ? scratch.read(piece.offset, piece.length) : window.read(piece.offset, piece.length, own)
  const bytes = Buffer.from(read.buffer, read.byteOffset, read.length)
  if (piece.sideLength === 0) return { bytes, escaped: [], replaced: [] }
  const side = Buffer.from(scratch.read(piece.sideOffset, piece.sideLength)).toString('utf8')
  const [escaped, replaced] = JSON.parse(side) as [[number, string][], number[]]
  return { bytes, escaped, replaced }
}

/**
 * Items by their piece's display path, then arrival: the order `showMatches` gives runs. Sorted as
 * strings (path, NUL, arrival, position) by the default sort, which orders by UTF-16 code units
 * natively: a comparator costs several times as much. A path holds no NUL, so it sorts first.
 */
function sortedByDisplay<T>(items: readonly T[], pieceOf: (item: T) => Piece): T[] {
  const keys = items.map((item, index) => `${pieceOf(item).display}\0${indexText(pieceOf(item).seq)}${indexText(index)}`)
  return keys.sort().map((key) => items[indexOfKey(key)]!)
}

/**
 * Every file of `flushes` (each in display order, arrival among equal paths) in display order, its
 * pieces in arrival order: a merge through a heap of the flushes by their next piece, an earlier flush
 * first among equal paths. Merging costs a fraction of sorting the whole result's paths again.
 */
function mergeFlushes(flushes: readonly (readonly Piece[])[]): [string, Piece[]][] {
  const next = flushes.map(() => 0)
  const before = (a: number, b: number): boolean => {
    const x = flushes[a]![next[a]!]!.display
    const y = flushes[b]![next[b]!]!.display
    return x < y || (x === y && a < b)
  }
  const heap = flushes.flatMap((pieces, flush) => (pieces.length > 0 ? [flush] : []))
  const sink = (from: number): void => {
    for (let at = from; ;) {
      let first = at
      const left = 2 * at + 1
      if (left < heap.length && before(heap[left]!, heap[first]!)) first = left
      if (left + 1 < heap.length && before(heap[left + 1]!, heap[first]!)) first = left + 1
      if (first === at) return
      ;[heap[at], heap[first]] = [heap[first]!, heap[at]!]
      at = first
    }
  }
  for (let at = (heap.length >> 1) - 1; at >= 0; at -= 1) sink(at)
  const groups: [string, Piece[]][] = []
  while (heap.length > 0) {
    const flush = heap[0]!
    const piece = flushes[flush]![next[flush]!]!
    const last = groups[groups.length - 1]
    if (last !== undefined && last[0] === piece.display) last[1].push(piece)
    else groups.push([piece.display, [piece]])
    next[flush]! += 1
    if (next[flush] === flushes[flush]!.length) {
      heap[0] = heap[heap.length - 1]!
      heap.pop()
    }
    sink(0)
  }
  return groups
}
