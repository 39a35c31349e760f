// The glob script's output as it arrives: `mtime TAB name NUL` records, parsed as bytes and times.
import type { BashRunResult } from '@dsh/core'
import { SearchError } from '../../errors.js'
import { ESCAPED_LEADS, isEscapedAt } from '../escape-controls.js'
import { OutputBytes } from '../output-bytes.js'
import type { GlobRuns } from './runs.js'

/** The listed files, as offsets into the output's bytes, with their modification times. */
export interface GlobListing {
  /** The output's bytes, valid UTF-8. */
  bytes: Buffer
  count: number
  /** Where each name starts and ends in `bytes`. */
  nameStart: Uint32Array
  nameEnd: Uint32Array
  /** Each file's modification time as whole seconds and nanoseconds, both negative before 1970. */
  seconds: Float64Array
  nanos: Int32Array
  /** Every name shows plain (`isPlainName`); when false, some may not. */
  plainNames: boolean
  /**
   * The files whose names held bytes that are not valid UTF-8, shown replaced by U+FFFD (most listings
   * have none); a name that holds U+FFFD itself is not one.
   */
  replaced: ReadonlySet<number>
}

const NUL = 0x00
const TAB = 0x09
const MINUS = 0x2d
const DOT = 0x2e
const SLASH = 0x2f
// find prints ten fractional digits, stat nine; nanoseconds are the first nine.
const FRACTION_MAX_DIGITS = 10
// Files the arrays first hold.
const INITIAL_FILES = 4096
// Bytes of the arrays per file: seconds (f64), name start and end (u32), nanoseconds (i32).
const ENTRY_BYTES = 20
// The shortest record: `0 TAB x NUL`.
const MIN_RECORD_BYTES = 4
// An excerpt shows 80 UTF-16 units, which never take more than 320 bytes.
const EXCERPT_UNITS = 80
const EXCERPT_BYTES = 320

/**
 * Parses the glob script's stdout chunk by chunk while it runs. A record that does not parse is not
 * thrown at once: `finish` throws it, after the caller has read the exit status. An mtime before 1970
 * is negative, fraction and all (`-1.25` is 1.25 s before the epoch), so its nanoseconds are too.
 */
export class GlobListingParser {
  readonly #output: OutputBytes
  readonly #capacityBytes: number
  /** No name holds a byte that could keep it from showing plain (`isPlainName`). */
  #plainNames = true
  #pos = 0
  #failure: number | undefined
  #count = 0
  #nameStart: Uint32Array
  #nameEnd: Uint32Array
  #seconds: Float64Array
  #nanos: Int32Array
  readonly #replaced = new Set<number>()
  /** Where the listing goes, a sorted run at a time, once it passes half the cap; undefined: it stays whole. */
  readonly #runs: GlobRuns | undefined
  /** The first file a replaced byte still to come can lie in: they arrive in listing order. */
  #replacedFile = 0

  /**
   * `capacityBytes`: the raw output cap, which the buffer grows to once the listing outgrows its start.
   * `runs`: where the parsed records go, sorted, each time they fill half of it
   * (docs/design.md#results-bigger-than-memory); without it the listing must fit the cap.
   */
  constructor(capacityBytes: number, runs?: GlobRuns) {
    this.#output = new OutputBytes(NUL, capacityBytes, { tracksReplacements: true })
    this.#capacityBytes = capacityBytes
    this.#runs = runs
    ;({ nameStart: this.#nameStart, nameEnd: this.#nameEnd, seconds: this.#seconds, nanos: this.#nanos } = listingArrays(INITIAL_FILES))
  }

  /** Takes the next chunk of stdout (copied) and parses every record it completes. */
  push(chunk: Uint8Array): void {
    this.#output.append(chunk)
    this.#parse(this.#output.checked)
    if (this.#runs !== undefined && 2 * this.#pos >= this.#capacityBytes && this.#failure === undefined) this.#flush(this.#runs)
  }

  /** Some of the listing went to runs: `finish` then gives only the rest, for the caller to add as the last. */
  get streamed(): boolean {
    return (this.#runs?.runs ?? 0) > 0
  }

  /** Sorts the parsed records into a run, drops their bytes and starts over on what is left. */
  #flush(runs: GlobRuns): void {
    const listing = this.#listing()
    runs.add(listing)
    this.#output.keep(0, this.#pos)
    this.#pos = 0
    this.#count = 0
    this.#replacedFile = 0
    this.#replaced.clear()
    this.#plainNames = true
  }

  /**
   * The run with its stdout as an executor that kept it would report it: the text decoded from the
   * bytes this parser kept, when it is read.
   */
  captured(run: BashRunResult): BashRunResult {
    const output = this.#output
    const streamed = this.streamed
    const { truncated, totalBytes } = run.stdout
    return {
      ...run,
      stdout: {
        get text(): string {
          // Every byte already in runs still means the script printed something.
          return output.length === 0 && streamed ? '\0' : output.text(0, output.length)
        },
        truncated,
        totalBytes,
      },
    }
  }

  /** Parses the rest once the output has ended; throws SEARCH_FAILED for a record that does not parse. */
  finish(): GlobListing {
    this.#output.finish()
    this.#parse(this.#output.length)
    return this.#listing()
  }

  /**
   * What arrived before the executor stopped the run (docs/design.md#a-timeout-returns-what-was-found):
   * every record that ended in its NUL, a last one still arriving dropped, since its rest will never
   * come. A record before it that did not parse is SEARCH_FAILED, as for `finish`.
   */
  finishStopped(): GlobListing {
    return this.#listing()
  }

  #listing(): GlobListing {
    if (this.#failure !== undefined) {
      const end = Math.min(this.#output.length, this.#failure + EXCERPT_BYTES)
      const near = JSON.stringify(this.#output.text(this.#failure, end).slice(0, EXCERPT_UNITS))
      throw new SearchError('SEARCH_FAILED', `glob could not parse the file listing near ${near}`)
    }
    const count = this.#count
    return {
      bytes: this.#output.bytes,
      count,
      nameStart: this.#nameStart.subarray(0, count),
      nameEnd: this.#nameEnd.subarray(0, count),
      seconds: this.#seconds.subarray(0, count),
      nanos: this.#nanos.subarray(0, count),
      plainNames: this.#plainNames,
      replaced: this.#replaced,
    }
  }

  /** Parses records up to `limit`, which ends a checked record (or the output). */
  #parse(limit: number): void {
    const bytes = this.#output.bytes
    let pos = this.#pos
    while (this.#failure === undefined && pos < limit) {
      let at = pos
      const sign = bytes[at] === MINUS ? -1 : 1
      if (sign === -1) at += 1
      const digits = at
      let seconds = 0
      while (at < limit && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) seconds = seconds * 10 + bytes[at++]! - 0x30
      if (at - digits > 15) seconds = Number(bytes.toString('latin1', digits, at))
      // Digits after a dot, or -1 for no dot: a dot needs one to ten of them.
      let fraction = -1
      let nanos = 0
      if (at > digits && bytes[at] === DOT) {
        for (fraction = 0, at += 1; at < limit && bytes[at]! >= 0x30 && bytes[at]! <= 0x39; at += 1, fraction += 1) {
          if (fraction < 9) nanos = nanos * 10 + bytes[at]! - 0x30
        }
        for (let unit = fraction; unit < 9; unit += 1) nanos *= 10
      }
      const nameStart = at + 1
      let nameEnd = nameStart
      // While looking for the NUL, note any byte that could keep a name from showing plain (a control,
      // DEL, a C1 control or format character, a dot after a dot, a slash first or after a slash): most
      // listings have none, and then no name needs checking.
      let odd = bytes[nameStart] === SLASH
      for (let byte = bytes[nameEnd]; nameEnd < limit && byte !== NUL; byte = bytes[++nameEnd]) {
        if (byte! < 0x20 || byte === 0x7f || ((byte === DOT || byte === SLASH) && bytes[nameEnd - 1] === byte)) odd = true
        else if (ESCAPED_LEADS[byte!] === 1 && isEscapedAt(bytes, nameEnd)) odd = true
      }
      if (odd) this.#plainNames = false
      const badFraction = fraction === 0 || fraction > FRACTION_MAX_DIGITS
      if (at === digits || badFraction || bytes[at] !== TAB || nameEnd === nameStart || nameEnd === limit) {
        this.#failure = pos
        break
      }
      this.#add(nameStart, nameEnd, sign * seconds, sign * nanos)
      pos = nameEnd + 1
    }
    this.#pos = pos
    this.#noteReplaced()
  }

  #add(nameStart: number, nameEnd: number, seconds: number, nanos: number): void {
    const index = this.#count
    if (index === this.#nameStart.length) this.#grow()
    this.#nameStart[index] = nameStart
    this.#nameEnd[index] = nameEnd
    this.#seconds[index] = seconds
    this.#nanos[index] = nanos
    this.#count = index + 1
  }

  /**
   * Notes the files whose names the decoder put U+FFFD in (a U+FFFD a name holds is not one): once per
   * parsed stretch, and only a look when there is none (docs/design.md#replaced-bytes-are-told-from-a-literal-ufffd).
   */
  #noteReplaced(): void {
    const offsets = this.#output.takeReplacements()
    let file = this.#replacedFile
    for (const at of offsets) {
      // Names lie in listing order, between times that hold only digits: the one that holds `at` is
      // the first that ends past it. One past the last parsed lies in a record that did not parse.
      while (file < this.#count && this.#nameEnd[file]! <= at) file += 1
      if (file < this.#count) this.#replaced.add(file)
    }
    this.#replacedFile = file
  }

  /**
   * Grows the arrays: to what the listing can reach before it goes to a run (half the raw output cap;
   * all of it without runs) at the records' average size so far, so a large listing grows once, or to
   * twice their size when more. The four share one buffer that is not zeroed: only the entries written
   * are ever read, and zeroing megabytes a call cost more than the parse.
   */
  #grow(): void {
    const perRecord = Math.max(MIN_RECORD_BYTES, this.#pos / this.#count)
    const held = this.#runs === undefined ? this.#capacityBytes : this.#capacityBytes / 2
    const size = Math.max(this.#nameStart.length * 2, Math.ceil(held / perRecord))
    const arrays = listingArrays(size)
    arrays.nameStart.set(this.#nameStart)
    arrays.nameEnd.set(this.#nameEnd)
    arrays.seconds.set(this.#seconds)
    arrays.nanos.set(this.#nanos)
    ;({ nameStart: this.#nameStart, nameEnd: this.#nameEnd, seconds: this.#seconds, nanos: this.#nanos } = arrays)
  }
}

/** A listing's four arrays of `size` entries in one buffer, not zeroed: seconds first, for its 8-byte alignment. */
function listingArrays(size: number): Pick<GlobListing, 'nameStart' | 'nameEnd' | 'seconds' | 'nanos'> {
  const { buffer, byteOffset } = Buffer.allocUnsafeSlow(size * ENTRY_BYTES)
  return {
    seconds: new Float64Array(buffer, byteOffset, size),
    nameStart: new Uint32Array(buffer, byteOffset + 8 * size, size),
    nameEnd: new Uint32Array(buffer, byteOffset + 12 * size, size),
    nanos: new Int32Array(buffer, byteOffset + 16 * size, size),
  }
}
