// Reading the grep script's output as it arrives: where its paths are relative to, then rg's `--null` records.
import { SearchError } from '../../errors.js'
import { ESCAPED_LEADS, escapeLineControls, isEscapedAt } from '../escape-controls.js'
import { OutputBytes } from '../output-bytes.js'
import type { GrepPieces, StreamedRecords } from './pieces.js'
import { CONTEXT, CUT, ESCAPED, ODD_NUMBER, RecordTable, writeRecord, type RecordRun } from './records.js'

/** One matched line as a host reads it (a result's `value.matches`): display path, shown line, its cut. */
export interface GrepMatch {
  path: string
  lineNumber: number
  /** The line as shown: cut to its byte budget, control characters escaped. */
  line: string
  /** True when the line shown is shorter than the line in the file. */
  lineCut: boolean
  /** For a long line shown as a window around its first match: the 1-based byte column the window starts at. */
  lineFrom?: number
}

/** What the parser must know of the search besides its budgets. */
export interface ParserOptions {
  /** The file target as rg was given it (`./a.txt`), when the search may be of one file: its binary notice names it. */
  fileTarget?: string
  /** rg prints context lines (`-A`/`-B`/`-C`): a record may carry `-` after its number. @default false */
  context?: boolean
  /**
   * Where records go once they fill half the raw output cap, so a result of any size parses in bounded
   * memory (docs/design.md#results-bigger-than-memory); told whether rg searched a directory or a file
   * first, since that decides how its paths display. Without it, the cap bounds the output.
   */
  pieces?: (searched: 'directory' | 'file') => GrepPieces
}

/** Everything the grep script's stdout says. */
export interface ParsedOutput {
  /** Whether rg searched inside a directory target or one file: what its paths are relative to. */
  searched: 'directory' | 'file'
  /** The records' bytes, valid UTF-8. */
  bytes: Buffer
  records: RecordTable
  /** Files rg named as binary instead of printing their lines (only for a file searched by name). */
  binaryFiles: string[]
  /** Files whose search rg stopped at binary content after a match: later matches in them are missing. */
  binaryStopped: string[]
  /** Set when the records outgrew memory: `bytes` and `records` are then empty, and this holds them. */
  streamed?: StreamedRecords
}

const NUL = 0x00
const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const DASH = 0x2d
// rg's notices about binary files, after the file's path: printed on stdout with ": " and no NUL
// (docs/design.md#one-bad-record-never-sinks-a-search). The first is for a file searched by name; the
// second when a NUL turns up after a match in a walked file, right after that file's records.
const BINARY_NOTICE =
  /^: (?:(WARNING: stopped searching binary file after match)|binary file matches) \(found "\\0" byte around offset \d+\)$/
// What --max-columns-preview appends to a cut line: ` [... omitted end of long line]` or ` [... N more match(es)]`.
const OMITTED = Buffer.from(' [... omitted end of long line]')
const MORE_OPENING = Buffer.from(' [... ')
const MORE_MATCH = Buffer.from(' more match]')
const MORE_MATCHES = Buffer.from(' more matches]')
// An excerpt shows 80 UTF-16 units, which never take more than 320 bytes.
const EXCERPT_UNITS = 80
const EXCERPT_BYTES = 320

/**
 * Parses the script's stdout chunk by chunk while rg runs (docs/design.md#grep-reads-rgs-null-line-output):
 * first `D` or `F` and a NUL, then `path NUL line-number : text NEWLINE` records. Each record is
 * compacted in place to its digits, flags and line as shown (cut, checked for control characters and
 * replaced bytes), and its path kept once per run of records from one file (`RecordTable`). The path ends at
 * the NUL, so one with a newline still parses. Output that does not parse is not thrown at once:
 * `finish` throws it, after the caller has read the exit status, as the whole-output parse did.
 */
export class RgOutputParser {
  readonly #output: OutputBytes
  #records = new RecordTable()
  readonly #pieceSink: ((searched: 'directory' | 'file') => GrepPieces) | undefined
  #pieces: GrepPieces | undefined
  readonly #flushBytes: number
  readonly #maxLineBytes: number
  readonly #fileTarget: Buffer | undefined
  readonly #context: boolean
  readonly #binaryFiles: string[] = []
  readonly #binaryStopped: string[] = []
  #searched: 'directory' | 'file' | undefined
  #pos = 0
  /** Where the output stopped parsing: `script` for its first record, else the record's offset. */
  #failure: 'script' | number | undefined
  #run: RecordRun | undefined
  /** The current run's path as rg printed it, in `#runPath[0, #runPathLength)`: the output it came from is compacted away. */
  #runPath = Buffer.allocUnsafe(256)
  #runPathView = new DataView(this.#runPath.buffer, this.#runPath.byteOffset, this.#runPath.length)
  #runPathLength = -1
  /**
   * The run's path holds no newline and no replaced byte: a record whose bytes match it up to a NUL is
   * from the same file.
   */
  #runPathPlain = false
  #lastLine = 0

  /**
   * `maxLineBytes`: the bytes of a line shown, a longer one cut on a character boundary, and the
   * `--max-columns` rg was given, which tells its previews from lines that end like one;
   * `capacityBytes`: the raw output cap, which the buffer grows to once the output outgrows its start.
   */
  constructor(maxLineBytes: number, capacityBytes: number, { fileTarget, context = false, pieces }: ParserOptions = {}) {
    this.#output = new OutputBytes(LF, capacityBytes, { tracksReplacements: true })
    this.#pieceSink = pieces
    // Half the cap, so the records and a record still arriving fit the buffer the cap sizes.
    this.#flushBytes = Math.floor(capacityBytes / 2)
    this.#maxLineBytes = maxLineBytes
    this.#fileTarget = fileTarget === undefined ? undefined : Buffer.from(fileTarget)
    this.#context = context
  }

  /** Takes the next chunk of stdout (copied) and parses every record it completes. */
  push(chunk: Uint8Array): void {
    this.#output.append(chunk)
    this.#parse(false)
  }

  /** Parses the rest once the output has ended; throws SEARCH_FAILED for output that does not parse. */
  finish(): ParsedOutput {
    this.#output.finish()
    this.#parse(true)
    return this.#parsed()
  }

  /**
   * What arrived before the executor stopped the run (docs/design.md#a-timeout-returns-what-was-found):
   * every record parsed as it came, and a last one still arriving dropped, since its rest will never
   * come. Output before it that did not parse is SEARCH_FAILED, as for `finish`. A run stopped before
   * the script's first record printed nothing of rg's, and has no records.
   */
  finishStopped(): ParsedOutput {
    return this.#parsed()
  }

  #parsed(): ParsedOutput {
    if (this.#failure === 'script') {
      throw new SearchError(
        'SEARCH_FAILED',
        `grep could not parse its script output near ${this.#excerpt(0)}; the search result cannot be trusted.`,
      )
    }
    if (this.#failure !== undefined) {
      throw new SearchError(
        'SEARCH_FAILED',
        `grep could not parse rg's output near ${this.#excerpt(this.#failure)}; the search result cannot be trusted.`,
      )
    }
    const parsed = {
      // Only a run stopped before the script's first record has none: it has no paths to be relative to.
      searched: this.#searched ?? 'file',
      bytes: this.#output.bytes,
      records: this.#records,
      binaryFiles: this.#binaryFiles,
      binaryStopped: this.#binaryStopped,
    }
    const pieces = this.#pieces
    if (pieces === undefined) return parsed
    // Once records have left memory, every record does: the result is ordered from its pieces.
    pieces.add(this.#output.bytes, this.#records)
    return { ...parsed, bytes: Buffer.alloc(0), records: new RecordTable(), streamed: pieces.finish() }
  }

  #parse(ended: boolean): void {
    if (this.#failure !== undefined) return
    if (this.#searched === undefined) {
      const bytes = this.#output.bytes
      if (this.#output.length < 2) {
        if (ended) this.#failure = 'script'
        return
      }
      const first = bytes[0]
      if (bytes[1] !== NUL || (first !== 0x44 && first !== 0x46)) {
        this.#failure = 'script'
        return
      }
      this.#searched = first === 0x44 ? 'directory' : 'file'
      this.#pos = 2
    }
    this.#parseRecords(ended ? this.#output.length : this.#output.checked, ended)
  }

  /**
   * Parses records from `#pos` up to `limit`, and compacts each record down to `records.end`. `limit`
   * ends a checked line (or the output, once it has `ended`), so a record that starts before it ends
   * before it, unless its path holds a newline and its NUL lies past it: that one waits for more. Per
   * record it reads each byte once, in this loop, which is the hot path.
   */
  #parseRecords(limit: number, ended: boolean): void {
    const bytes = this.#output.bytes
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
    const records = this.#records
    let pos = this.#pos
    let kept = records.end
    // Most outputs are valid UTF-8 throughout: then no record asks where bytes were replaced.
    const replaced = this.#output.replacedIn(pos, limit)
    while (pos < limit) {
      // Most records repeat the last one's path: when they do, and a NUL follows, there is nothing to scan for.
      let path = this.#runPath
      let nul = pos + this.#runPathLength
      let sameFile = this.#runPathPlain && nul < limit && bytes[nul] === NUL && sameBytes(view, pos, this.#runPathView, this.#runPathLength)
      if (!sameFile) nul = pos
      while (!sameFile && nul < limit && bytes[nul] !== NUL && bytes[nul] !== LF) nul += 1
      if (nul === limit || bytes[nul] === LF) {
        const after = this.#lineWithoutNul(pos, nul, limit, ended)
        if (after === undefined) break
        if (after.notice) {
          pos = after.next
          continue
        }
        nul = after.nul
      }

      let at = nul + 1
      let line = 0
      while (at < limit && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) line = line * 10 + bytes[at++]! - 0x30
      const contextLine = this.#context && bytes[at] === DASH
      if (at === limit || at === nul + 1 || (bytes[at] !== COLON && !contextLine)) {
        this.#failure = pos
        break
      }
      const digits = at - nul - 1
      const odd = digits > 15 || (digits > 1 && bytes[nul + 1] === 0x30)
      if (odd) line = Number(bytes.toString('latin1', nul + 1, at))

      const textStart = at + 1
      // The line's end and its first byte to escape, if any, in one loop in JS: four printable ASCII
      // bytes at a step, and the bytes of any four that are not, one by one. Past a byte to escape,
      // the end is found by memchr.
      let lineEnd = -1
      let firstControl = -1
      for (let i = textStart; i < limit && lineEnd === -1 && firstControl === -1;) {
        if (i + 4 <= limit && printable(view.getUint32(i))) {
          i += 4
          continue
        }
        for (const stop = Math.min(i + 4, limit); i < stop; i += 1) {
          const byte = bytes[i]!
          if (byte >= 0x20 && byte < 0x7f) continue
          if (byte === LF) {
            lineEnd = i
            break
          }
          // A control but a tab; DEL, a C1 control or an invisible format character (the bytes are valid UTF-8).
          if (byte < 0x20 ? byte !== 0x09 : byte === 0x7f || (ESCAPED_LEADS[byte] === 1 && isEscapedAt(bytes, i))) {
            firstControl = i
            break
          }
        }
      }
      if (lineEnd === -1) {
        lineEnd = firstControl === -1 ? -1 : bytes.indexOf(LF, firstControl)
        if (lineEnd === -1 || lineEnd > limit) lineEnd = limit
      }

      // A path that holds a newline is compared here, after the line before its NUL was read as such.
      sameFile ||= !this.#runPathPlain && nul - pos === this.#runPathLength
      for (let i = nul - pos - 1; !this.#runPathPlain && sameFile && i >= 0; i -= 1) sameFile = bytes[pos + i] === path[i]
      // A name with bytes replaced and one that holds U+FFFD itself decode alike, but are two files:
      // checked when this one may hold a replaced byte, or the run's did (its path is then not plain).
      let pathReplaced = false
      if (replaced || !this.#runPathPlain) {
        pathReplaced = replaced && this.#output.replacedIn(pos, nul)
        if (sameFile && pathReplaced !== this.#run?.pathReplaced) sameFile = false
      }
      if (!sameFile || this.#run === undefined) {
        this.#run = records.startRun(this.#output.text(pos, nul), kept, pathReplaced)
        if (nul - pos > path.length) {
          this.#runPath = path = Buffer.allocUnsafe(2 * (nul - pos))
          this.#runPathView = new DataView(path.buffer, path.byteOffset, path.length)
        }
        let plain = true
        for (let i = pos; i < nul; i += 1) {
          path[i - pos] = bytes[i]!
          if (bytes[i] === LF) plain = false
        }
        this.#runPathLength = nul - pos
        this.#runPathPlain = plain && !pathReplaced
        this.#lastLine = line
      }
      const run = this.#run
      if (line < this.#lastLine) run.inLineOrder = false
      this.#lastLine = line

      let textEnd = lineEnd > textStart && bytes[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd
      let flags = (odd ? ODD_NUMBER : 0) | (contextLine ? CONTEXT : 0)
      // rg's preview only when the head fills --max-columns: a line of the file's own that ends in the
      // marker's words is shorter, and shown whole (docs/design.md#a-line-that-ends-like-a-preview-is-whole).
      const marker = previewMarkerStart(bytes, textStart, textEnd)
      if (marker !== -1 && marker - textStart >= this.#maxLineBytes) {
        textEnd = marker
        flags |= CUT
      }
      if (textEnd - textStart > this.#maxLineBytes) {
        textEnd = textStart + this.#maxLineBytes
        // Back to the start of the character the budget would split.
        while ((bytes[textEnd]! & 0xc0) === 0x80) textEnd -= 1
        flags |= CUT
      }
      if (replaced && this.#output.replacedIn(textStart, textEnd)) {
        run.lossyLines += 1
        records.replacedLines.add(kept)
      }
      // Escaped after the cut: the byte budget is the file's text, not its escapes.
      if (firstControl !== -1 && firstControl < textEnd) {
        flags |= ESCAPED
        records.escapedLines.set(kept, escapeLineControls(this.#output.text(textStart, textEnd)))
      }
      kept = writeRecord(bytes, kept, nul + 1, at, flags, textStart, textEnd)
      records.count += 1
      run.count += 1
      if (contextLine) run.contextLines += 1
      pos = lineEnd + 1
    }
    records.end = kept
    if (this.#failure !== undefined) {
      this.#pos = pos
      return
    }
    // What is read is compacted; what is not (a record still arriving) moves down behind it.
    this.#output.keep(kept, Math.min(pos, this.#output.length))
    this.#pos = kept
    if (kept > this.#flushBytes && this.#pieceSink !== undefined) this.#flush()
  }

  /**
   * Moves every record to the pieces and empties the buffer down to the record still arriving: the
   * file being printed goes on in a new run (docs/design.md#results-bigger-than-memory).
   */
  #flush(): void {
    this.#pieces ??= this.#pieceSink!(this.#searched!)
    this.#pieces.add(this.#output.bytes, this.#records)
    this.#output.keep(0, this.#records.end)
    this.#records = new RecordTable()
    this.#pos = 0
    this.#run = undefined
  }

  /**
   * A line with no NUL before its end: rg's notice about a binary file (recorded), or the start of a
   * path that holds a newline, whose NUL comes later. Undefined when parsing must stop here: the
   * output does not parse, or the rest has not arrived yet.
   */
  #lineWithoutNul(
    pos: number,
    lineEnd: number,
    limit: number,
    ended: boolean,
  ): { notice: true; next: number } | { notice: false; nul: number } | undefined {
    const notice = this.#binaryNotice(pos, limit, ended)
    if (notice === 'wait') return undefined
    if (notice !== undefined) return { notice: true, next: notice }
    const nul = this.#output.bytes.subarray(lineEnd, limit).indexOf(NUL)
    if (nul !== -1) return { notice: false, nul: lineEnd + nul }
    if (ended) this.#failure = pos
    return undefined
  }

  /**
   * A binary notice at `pos` is read only for a path rg can name in one: the file it was given, or the
   * file whose records it just printed. Matching a known path, not a line, keeps a name that holds a
   * newline (or reads like a notice) from being split into a notice and a record of a wrong path.
   * Returns where the notice ends, `wait` when its end has not arrived, or undefined when none is here.
   */
  #binaryNotice(pos: number, limit: number, ended: boolean): number | 'wait' | undefined {
    const bytes = this.#output.bytes
    const known = [this.#fileTarget, this.#runPathLength >= 0 ? this.#runPath.subarray(0, this.#runPathLength) : undefined]
    for (const path of known) {
      if (path === undefined || pos + path.length > limit || bytes.compare(path, 0, path.length, pos, pos + path.length) !== 0) continue
      const lf = bytes.subarray(pos + path.length, limit).indexOf(LF)
      if (lf === -1 && !ended) return 'wait'
      // The output's last line may end without its newline.
      const end = lf === -1 ? limit - pos - path.length : lf
      const notice = BINARY_NOTICE.exec(this.#output.text(pos + path.length, pos + path.length + end))
      if (notice === null) continue
      ;(notice[1] === undefined ? this.#binaryFiles : this.#binaryStopped).push(this.#output.text(pos, pos + path.length))
      return pos + path.length + end + 1
    }
    return undefined
  }

  /** The output from `start`, as a message quotes it: 80 UTF-16 units, JSON-quoted. */
  #excerpt(start: number): string {
    const end = Math.min(this.#output.length, start + EXCERPT_BYTES)
    return JSON.stringify(this.#output.text(start, end).slice(0, EXCERPT_UNITS))
  }
}

/**
 * Each byte of a big-endian word is printable ASCII (0x20–0x7e), tested at once: a byte under 0x20
 * borrows into its top bit when 0x20 is taken from it (and had none set), one over 0x7e has it set
 * once 1 is added to it, or already.
 */
function printable(word: number): boolean {
  return ((((word - 0x20202020) & ~word) | (word + 0x01010101) | word) & 0x80808080) === 0
}

/**
 * `a[aStart, aStart + length)` holds `b[0, length)`: four bytes a step, from the end (two paths in one
 * directory differ last). The parser asks it of each record's path against the last one's.
 */
function sameBytes(a: DataView, aStart: number, b: DataView, length: number): boolean {
  let at = length - 4
  for (; at >= 0; at -= 4) if (a.getUint32(aStart + at) !== b.getUint32(at)) return false
  for (at += 3; at >= 0; at -= 1) if (a.getUint8(aStart + at) !== b.getUint8(at)) return false
  return true
}

/** Where rg's `--max-columns-preview` marker starts at the end of `bytes[start, end)`, or -1. */
export function previewMarkerStart(bytes: Buffer, start: number, end: number): number {
  if (end === start || bytes[end - 1] !== 0x5d) return -1
  if (endsWith(bytes, start, end, OMITTED)) return end - OMITTED.length
  const more = endsWith(bytes, start, end, MORE_MATCHES) ? MORE_MATCHES : endsWith(bytes, start, end, MORE_MATCH) ? MORE_MATCH : undefined
  if (more === undefined) return -1
  const digitsEnd = end - more.length
  let digits = digitsEnd
  while (digits > start && bytes[digits - 1]! >= 0x30 && bytes[digits - 1]! <= 0x39) digits -= 1
  if (digits === digitsEnd || !endsWith(bytes, start, digits, MORE_OPENING)) return -1
  return digits - MORE_OPENING.length
}

function endsWith(bytes: Buffer, start: number, end: number, suffix: Buffer): boolean {
  return end - start >= suffix.length && bytes.compare(suffix, 0, suffix.length, end - suffix.length, end) === 0
}
