// A script's stdout as it arrives, kept as bytes that are valid UTF-8 up to the last complete record.
import { isUtf8 } from 'node:buffer'
import { replacementOffsets } from './replacements.js'

// The buffer's first size, enough for most searches.
const INITIAL_BYTES = 64 * 1024
// What `takeReplacements` gives for output without replaced bytes (most of it).
const NONE: readonly number[] = Object.freeze([])

/** How an `OutputBytes` reads its output. */
export interface OutputBytesOptions {
  /**
   * Remember where U+FFFD was put in for bytes, for `replacedIn` and `takeReplacements`. A reader that
   * never compacts (`keep`) takes them as it parses, or they are held to the end. @default false
   */
  tracksReplacements?: boolean
}

/**
 * The bytes of a search script's stdout, appended chunk by chunk into one buffer. It starts small and,
 * once the output outgrows that, is allocated at the raw output cap: pages no byte reaches cost no
 * memory, and one move beats doubling, which would touch every page again at each step. (A buffer the
 * size of the cap on every call would push V8, which counts buffers toward its next full collection,
 * into one every few calls.) Each complete record (up to a `boundary` byte: grep's line feed, glob's
 * NUL) is checked as it arrives; a stretch that is not valid UTF-8 is replaced by its lossy decoding,
 * re-encoded, so every reader sees exactly the text a whole-output decode would give
 * (docs/design.md#one-bad-record-never-sinks-a-search). A stretch may be decoded apart from the rest
 * because it begins and ends at an ASCII boundary, where a decoder holds no partial character. A
 * parser may compact what it has read (`keep`), so the buffer holds its records, not the raw output.
 * Where a U+FFFD was put in for bytes is remembered (`replacedIn`), so a reader can tell it from a
 * U+FFFD the output held: after decoding the two are the same three bytes
 * (docs/design.md#replaced-bytes-are-told-from-a-literal-ufffd).
 */
export class OutputBytes {
  #bytes = Buffer.allocUnsafe(INITIAL_BYTES)
  readonly #boundary: number
  readonly #capacityBytes: number
  readonly #tracksReplacements: boolean
  #length = 0
  #checked = 0
  /**
   * Where the U+FFFDs put in for bytes start, in ascending order, each as its offset plus `#dropped`
   * at the time: `keep` then moves none of them (most outputs have none, and the list stays empty).
   * Those from `#first` on are in bytes not yet compacted.
   */
  #replaced: number[] = []
  #first = 0
  /** Bytes `keep` has dropped so far. */
  #dropped = 0

  /**
   * `boundary`: the byte that ends a record (the output is checked a record at a time); `capacityBytes`:
   * the raw output cap.
   */
  constructor(boundary: number, capacityBytes: number, { tracksReplacements = false }: OutputBytesOptions = {}) {
    this.#boundary = boundary
    this.#capacityBytes = capacityBytes
    this.#tracksReplacements = tracksReplacements
  }

  /** The buffer; valid until the next `append`, `finish` or `keep`, which may replace it. */
  get bytes(): Buffer {
    return this.#bytes
  }

  /** Bytes held. */
  get length(): number {
    return this.#length
  }

  /** Where the checked bytes end: everything before it is valid UTF-8 and ends at a boundary (or the output's end). */
  get checked(): number {
    return this.#checked
  }

  /** Appends a chunk (copied: the executor may reuse it) and checks the records it completes. */
  append(chunk: Uint8Array): void {
    const start = this.#length
    this.#reserve(chunk.length)
    this.#bytes.set(chunk, start)
    this.#length += chunk.length
    // Only the chunk is searched: a long record arriving in many chunks is not scanned again for each.
    const last = this.#bytes.subarray(start, this.#length).lastIndexOf(this.#boundary)
    if (last !== -1) this.#check(start + last + 1)
  }

  /** Checks the rest, a last record without its boundary included: the output has ended. */
  finish(): void {
    this.#check(this.#length)
  }

  /**
   * Drops `[end, from)`, which the parser has read and no longer needs: the bytes from `from` on move
   * down to `end`, so the next chunk lands after what is kept and the buffer never grows past it.
   */
  keep(end: number, from: number): void {
    if (end === from) return
    this.#bytes.copyWithin(end, from, this.#length)
    this.#length -= from - end
    // What lies before `from` has been read, and the parser's records replace it: its replacements are forgotten.
    while (this.#first < this.#replaced.length && this.#replaced[this.#first]! - this.#dropped < from) this.#first += 1
    if (this.#first === this.#replaced.length) this.#replaced.length = this.#first = 0
    this.#dropped += from - end
    // Bytes dropped before any line was checked (the script's first record) leave nothing checked past `end`.
    this.#checked = Math.max(end, this.#checked - (from - end))
  }

  /**
   * Whether a U+FFFD put in for bytes that were not valid UTF-8 starts in `[start, end)` of the checked
   * bytes not yet compacted; a U+FFFD the output held is not one. Always false unless `tracksReplacements`.
   */
  replacedIn(start: number, end: number): boolean {
    const replaced = this.#replaced
    if (this.#first === replaced.length) return false
    // The first replacement at or after `start`, by binary search: a chunk may hold many.
    let low = this.#first
    let high = replaced.length
    const from = start + this.#dropped
    while (low < high) {
      const middle = (low + high) >>> 1
      if (replaced[middle]! < from) low = middle + 1
      else high = middle
    }
    return low < replaced.length && replaced[low]! < end + this.#dropped
  }

  /**
   * Where each U+FFFD put in for bytes starts in the checked bytes not yet compacted, ascending;
   * forgotten once taken, so a reader that keeps every byte (`keep` never drops any) holds no offsets
   * it has already read. Empty unless `tracksReplacements`, and for valid output.
   */
  takeReplacements(): readonly number[] {
    if (this.#first === this.#replaced.length) return NONE
    const taken = this.#replaced.slice(this.#first).map((at) => at - this.#dropped)
    this.#replaced.length = this.#first = 0
    return taken
  }

  /** The bytes from `start` to `end` decoded (lossily where they are not yet checked). */
  text(start: number, end: number): string {
    return this.#bytes.toString('utf8', start, end)
  }

  #check(end: number): void {
    const start = this.#checked
    if (!isUtf8(this.#bytes.subarray(start, end))) {
      if (this.#tracksReplacements)
        for (const at of replacementOffsets(this.#bytes, start, end)) this.#replaced.push(start + at + this.#dropped)
      const fixed = Buffer.from(this.text(start, end))
      const rest = Buffer.from(this.#bytes.subarray(end, this.#length))
      this.#length = start
      this.#reserve(fixed.length + rest.length)
      this.#bytes.set(fixed, start)
      this.#bytes.set(rest, start + fixed.length)
      this.#length = start + fixed.length + rest.length
      end = start + fixed.length
    }
    this.#checked = end
  }

  /**
   * Grows the buffer when `more` bytes would not fit: to the raw output cap the first time, then (for
   * replaced bytes, or an executor past its cap) to twice its size; to what is needed, when more.
   */
  #reserve(more: number): void {
    const needed = this.#length + more
    if (needed <= this.#bytes.length) return
    const size = this.#bytes.length === INITIAL_BYTES ? this.#capacityBytes : this.#bytes.length * 2
    const grown = Buffer.allocUnsafe(Math.max(needed, size))
    this.#bytes.copy(grown, 0, 0, this.#length)
    this.#bytes = grown
  }
}
