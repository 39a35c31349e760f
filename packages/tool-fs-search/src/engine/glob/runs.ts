// A glob listing larger than memory: sorted runs on the scratch file, merged newest first as they are read back.
import type { SpillScratch } from '@dsh/core'
import { isPlainName, type NameDisplay } from '../display-path.js'
import type { GlobListing } from './listing.js'
import { sortNewestFirst } from './order.js'
import { GATHER, gatherNames, gathered, type ShownPaths } from './paths.js'

// A record on the scratch file: seconds (f64), nanoseconds (i32), name length (u32), plain (u8), name.
const HEADER_BYTES = 17
// Bytes a run is written in, and each run's read buffer while merging.
const BLOCK_BYTES = 1 << 16
const LF = 0x0a

/** One sorted run on the scratch file. */
export interface Run {
  offset: number
  length: number
}

/**
 * A run's records read back a block at a time: each a fixed header, whose u32 at `lengthAt` is the
 * length of the body that follows. Glob's runs and Grep's count runs both read through it.
 */
export class RunBytes {
  readonly #scratch: RunStore
  #next: number
  readonly #end: number
  /** The bytes held; replaced when a record outgrows it, so read it after `record`. */
  buffer = Buffer.allocUnsafe(BLOCK_BYTES)
  #at = 0
  #held = 0

  constructor(scratch: RunStore, run: Run) {
    this.#scratch = scratch
    this.#next = run.offset
    this.#end = run.offset + run.length
  }

  /** Where the next record starts in `buffer`, held whole, and its body's length; undefined past the run's end. */
  record(headerBytes: number, lengthAt: number): { at: number; length: number } | undefined {
    if (this.#held - this.#at < headerBytes) this.#fill(headerBytes)
    if (this.#held - this.#at < headerBytes) return undefined
    const length = this.buffer.readUInt32LE(this.#at + lengthAt)
    if (this.#held - this.#at < headerBytes + length) this.#fill(headerBytes + length)
    const at = this.#at
    this.#at = at + headerBytes + length
    return { at, length }
  }

  /** Keeps the unread bytes and reads on, so that at least `needed` of them are held (or the run ends). */
  #fill(needed: number): void {
    const rest = this.#held - this.#at
    if (this.buffer.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.buffer.length))
      this.buffer.copy(grown, 0, this.#at, this.#held)
      this.buffer = grown
    } else this.buffer.copyWithin(0, this.#at, this.#held)
    this.#at = 0
    this.#held = rest
    const length = Math.min(this.#end - this.#next, this.buffer.length - rest)
    if (length === 0) return
    const into = this.buffer.subarray(rest, rest + length)
    const read = this.#scratch.read(this.#next, length, into)
    // A store may read into a buffer of its own.
    if (read.buffer !== into.buffer || read.byteOffset !== into.byteOffset) into.set(read)
    this.#next += length
    this.#held += length
  }
}

/** A run being read back: its current record, and the buffer it lies in. */
class RunReader {
  readonly #bytes: RunBytes
  seconds = 0
  nanos = 0
  start = 0
  end = 0
  plain = false

  constructor(scratch: RunStore, run: Run) {
    this.#bytes = new RunBytes(scratch, run)
  }

  get bytes(): Buffer {
    return this.#bytes.buffer
  }

  /** Moves to the next record; false past the run's end. */
  advance(): boolean {
    const record = this.#bytes.record(HEADER_BYTES, 12)
    if (record === undefined) return false
    const buffer = this.#bytes.buffer
    this.seconds = buffer.readDoubleLE(record.at)
    this.nanos = buffer.readInt32LE(record.at + 8)
    this.plain = buffer[record.at + 16] === 1
    this.start = record.at + HEADER_BYTES
    this.end = this.start + record.length
    return true
  }
}

/** A file of the merged listing: its name's bytes, valid until the next is asked for. */
export interface MergedName {
  bytes: Buffer
  start: number
  end: number
  plain: boolean
}

/**
 * The runs of one listing (docs/design.md#results-bigger-than-memory): each a stretch of the listing
 * that filled the parser's buffer, sorted newest first as `sortNewestFirst` sorts the whole, written to
 * the scratch file as compact records. Memory holds one run while it is sorted and, while merging, a
 * block per run. Without a scratch file only each run's first `keepPerRun` files are kept, in memory:
 * enough for the page, and the total is still counted.
 */
export class GlobRuns {
  readonly #scratch: RunStore
  readonly #keepPerRun: number
  readonly #runs: Run[] = []
  /** Files in every run, and those with replaced bytes. */
  count = 0
  lossy = 0
  /** Every file is kept: the merge gives the complete listing. */
  readonly complete: boolean

  constructor(scratch: SpillScratch | undefined, keepPerRun: number) {
    this.#scratch = scratch ?? memoryScratch()
    this.complete = scratch !== undefined
    this.#keepPerRun = scratch === undefined ? keepPerRun : Number.POSITIVE_INFINITY
  }

  /** Runs written so far. */
  get runs(): number {
    return this.#runs.length
  }

  /**
   * Sorts `listing` newest first and writes it as one run (the caller then reuses the listing's
   * buffers). Names and times are gathered (paths.ts `gatherNames`) a batch at a time before any
   * record is written.
   */
  add(listing: GlobListing): void {
    const { bytes, plainNames } = listing
    const order = sortNewestFirst(listing)
    const kept = Math.min(order.length, this.#keepPerRun)
    const block = Buffer.allocUnsafe(BLOCK_BYTES)
    const blockView = new DataView(block.buffer, block.byteOffset, block.length)
    const offset = this.#scratch.size
    let used = 0
    const flush = (): void => {
      if (used > 0) this.#scratch.append(block.subarray(0, used))
      used = 0
    }
    for (let index = 0; index < kept; index += GATHER) {
      const count = Math.min(GATHER, kept - index)
      gatherNames(listing, order, index, count, true)
      for (let k = 0; k < count; k += 1) {
        const start = gathered.start[k]!
        const end = gathered.end[k]!
        if (used + HEADER_BYTES + end - start > BLOCK_BYTES) flush()
        const record = used + HEADER_BYTES + end - start > BLOCK_BYTES ? Buffer.allocUnsafe(HEADER_BYTES + end - start) : block
        const view = record === block ? blockView : new DataView(record.buffer, record.byteOffset, record.length)
        const at = record === block ? used : 0
        view.setFloat64(at, gathered.seconds[k]!, true)
        view.setInt32(at + 8, gathered.nanos[k]!, true)
        view.setUint32(at + 12, end - start, true)
        record[at + 16] = plainNames || isPlainName(bytes, start, end) ? 1 : 0
        copyBytes(bytes, start, end, record, at + HEADER_BYTES)
        if (record === block) used += HEADER_BYTES + end - start
        else this.#scratch.append(record)
      }
    }
    flush()
    this.#runs.push({ offset, length: this.#scratch.size - offset })
    this.count += listing.count
    this.lossy += listing.replaced.size
  }

  /** The kept files newest first, ties by name, as `sortNewestFirst` orders the whole listing. */
  *merged(): Generator<MergedName> {
    const heap: RunReader[] = []
    for (const run of this.#runs) {
      const reader = new RunReader(this.#scratch, run)
      if (reader.advance()) heap.push(reader)
    }
    for (let at = (heap.length >> 1) - 1; at >= 0; at -= 1) siftDown(heap, at)
    const name: MergedName = { bytes: Buffer.alloc(0), start: 0, end: 0, plain: false }
    while (heap.length > 0) {
      const top = heap[0]!
      name.bytes = top.bytes
      name.start = top.start
      name.end = top.end
      name.plain = top.plain
      yield name
      if (!top.advance()) {
        const last = heap.pop()!
        if (heap.length === 0) break
        heap[0] = last
      }
      siftDown(heap, 0)
    }
  }

  /** The merged listing as `showPaths` shows a listing: a path made only when read. */
  shown(display: NameDisplay): ShownPaths {
    let merge = this.merged()
    let position = 0
    const show = (name: MergedName): string => display.show(name.bytes.toString('utf8', name.start, name.end))
    return {
      count: this.count,
      lossy: this.lossy,
      at: (index) => {
        // Paths are read in order (the page, then every path for a host): a read before the cursor starts over.
        if (index < position) {
          merge = this.merged()
          position = 0
        }
        for (; position < index; position += 1) merge.next()
        const next = merge.next()
        /* v8 ignore next -- callers read below `count`, and a kept merge holds at least the page's files */
        if (next.done === true) throw new RangeError(`no path ${index} in the listing`)
        position += 1
        return show(next.value)
      },
    }
  }
}

/** The merged listing's paths, one per line, as blocks of UTF-8 bytes: what `pathBlocks` writes. */
export function* mergedPathBlocks(runs: GlobRuns, display: NameDisplay): Generator<Uint8Array> {
  const block = Buffer.allocUnsafe(1 << 18)
  const prefix = display.prefix === undefined ? undefined : Buffer.from(display.prefix)
  let used = 0
  for (const { bytes, start: from, end, plain } of runs.merged()) {
    let start = from
    let shown: Buffer | undefined
    let length: number
    if (prefix !== undefined && plain) {
      // Shown without the `./` rg may print.
      if (end - start >= 2 && bytes[start] === 0x2e && bytes[start + 1] === 0x2f) start += 2
      length = prefix.length + end - start + 1
    } else {
      shown = Buffer.from(`${display.show(bytes.toString('utf8', start, end))}\n`)
      length = shown.length
    }
    if (used > 0 && used + length > block.length) {
      yield block.subarray(0, used)
      used = 0
    }
    if (length > block.length) {
      yield shown ?? Buffer.concat([prefix!, bytes.subarray(start, end), Buffer.from([LF])])
      continue
    }
    if (shown !== undefined) used += shown.copy(block, used)
    else {
      used = copyBytes(prefix!, 0, prefix!.length, block, used)
      used = copyBytes(bytes, start, end, block, used)
      block[used++] = LF
    }
  }
  if (used > 0) yield block.subarray(0, used)
}

/**
 * Copies `from[start, end)` to `to` at `at` and returns where it ends: byte by byte for a short name,
 * which costs less than a native copy's call (most names are short).
 */
function copyBytes(from: Uint8Array, start: number, end: number, to: Uint8Array, at: number): number {
  if (end - start > 64) {
    to.set(from.subarray(start, end), at)
    return at + end - start
  }
  for (let i = start; i < end; i += 1) to[at++] = from[i]!
  return at
}

/** Newest first, then by name as `compareNames` orders UTF-16: the reader that comes first. */
function before(a: RunReader, b: RunReader): boolean {
  if (a.seconds !== b.seconds) return a.seconds > b.seconds
  if (a.nanos !== b.nanos) return a.nanos > b.nanos
  return compareNameBytes(a.bytes, a.start, a.end, b.bytes, b.start, b.end) < 0
}

function siftDown(heap: RunReader[], from: number): void {
  let at = from
  for (;;) {
    const left = 2 * at + 1
    if (left >= heap.length) return
    const right = left + 1
    const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left
    if (!before(heap[child]!, heap[at]!)) return
    const swap = heap[at]!
    heap[at] = heap[child]!
    heap[child] = swap
    at = child
  }
}

/** Two names' UTF-8 bytes compared as `<` compares their strings (see order.ts `compareNames`). */
function compareNameBytes(a: Buffer, aStart: number, aEnd: number, b: Buffer, bStart: number, bEnd: number): number {
  const common = Math.min(aEnd - aStart, bEnd - bStart)
  let i = 0
  while (i < common && a[aStart + i] === b[bStart + i]) i += 1
  if (i === common) return aEnd - aStart - (bEnd - bStart)
  const x = a[aStart + i]!
  const y = b[bStart + i]!
  if (x >= 0xf0 && (y === 0xee || y === 0xef)) return -1
  if (y >= 0xf0 && (x === 0xee || x === 0xef)) return 1
  return x - y
}

/** What the runs need of a scratch file. */
export type RunStore = Pick<SpillScratch, 'size' | 'append' | 'read'>

/** Where the kept head of each run waits when there is no scratch file: in memory (count runs too). */
export function memoryScratch(): RunStore {
  const chunks: Buffer[] = []
  let size = 0
  let joined: Buffer | undefined
  return {
    get size() {
      return size
    },
    append(bytes) {
      chunks.push(Buffer.from(bytes))
      joined = undefined
      const start = size
      size += bytes.length
      return start
    },
    // The reader copies what it is given into its own buffer.
    read(offset, length) {
      joined ??= Buffer.concat(chunks)
      return joined.subarray(offset, offset + length)
    },
  }
}
