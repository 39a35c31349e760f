// The sorted listing as the model sees it: display paths made for the page, bytes written for the spill.
import { isPlainName, type NameDisplay } from '../display-path.js'
import type { GlobListing } from './listing.js'

/** The listing in page order, shown: each path made only when something reads it. */
export interface ShownPaths {
  count: number
  /** The `index`th path, newest first. */
  at: (index: number) => string
  /**
   * Paths whose names held bytes that are not valid UTF-8, shown replaced by U+FFFD. A U+FFFD a name
   * holds is not one, nor one in what it is shown from: the workdir and the directory are the call's
   * own text, not rg's bytes (docs/design.md#replaced-bytes-are-told-from-a-literal-ufffd).
   */
  lossy: number
}

/** The listing in `order`, as `display` shows its names. */
export function showPaths(listing: GlobListing, order: Uint32Array, display: NameDisplay): ShownPaths {
  const { bytes, nameStart, nameEnd } = listing
  const name = (file: number): string => bytes.toString('utf8', nameStart[file], nameEnd[file])
  return { count: listing.count, at: (index) => display.show(name(order[index]!)), lossy: listing.replaced.size }
}

/** Whether a name shows plain: known for all at once when the parser saw nothing that could say no. */
function isPlain(listing: GlobListing, start: number, end: number): boolean {
  return listing.plainNames || isPlainName(listing.bytes, start, end)
}

// Blocks of the complete listing as the spill store writes them.
const BLOCK_BYTES = 1 << 18
const LF = 0x0a

/**
 * Every path, one per line, as blocks of UTF-8 bytes: what `paths.join('\n') + '\n'` gives, without a
 * string per path. A plain name is its display prefix and its own bytes; any other goes through
 * `display.show`. One buffer is refilled for each block (the store is done with a block before it
 * asks for the next).
 */
export function* pathBlocks(listing: GlobListing, order: Uint32Array, display: NameDisplay): Generator<Uint8Array> {
  const block = Buffer.allocUnsafe(BLOCK_BYTES)
  const prefix = display.prefix === undefined ? undefined : Buffer.from(display.prefix)
  const cursor = { index: 0, used: 0 }
  while (cursor.index < order.length) {
    writePlainPaths(listing, order, prefix, block, cursor)
    if (cursor.index === order.length) break
    const file = order[cursor.index]!
    const start = listing.nameStart[file]!
    const end = listing.nameEnd[file]!
    if (prefix !== undefined && isPlain(listing, start, end) && prefix.length + end - start < BLOCK_BYTES) {
      // A plain path that an empty block holds: this one is full.
      yield block.subarray(0, cursor.used)
      cursor.used = 0
      continue
    }
    const shown = Buffer.from(`${display.show(listing.bytes.toString('utf8', start, end))}\n`)
    if (cursor.used > 0 && cursor.used + shown.length > BLOCK_BYTES) {
      yield block.subarray(0, cursor.used)
      cursor.used = 0
    }
    if (shown.length > BLOCK_BYTES) yield shown
    else cursor.used += shown.copy(block, cursor.used)
    cursor.index += 1
  }
  if (cursor.used > 0) yield block.subarray(0, cursor.used)
}

/** Files whose names are looked up at a time, before any is copied (see `gatherNames`). */
export const GATHER = 256

/** What `gatherNames` read: each gathered file's name (its bounds and first byte) and time. */
export const gathered = {
  start: new Uint32Array(GATHER),
  end: new Uint32Array(GATHER),
  first: new Uint8Array(GATHER),
  seconds: new Float64Array(GATHER),
  nanos: new Int32Array(GATHER),
}

/**
 * Reads into `gathered` the names of files `order[from, from + count)` (`count` at most `GATHER`),
 * and their times when `times`. Newest first is a random walk through the listing's bytes, a cache
 * miss or three a name; these reads do not depend on each other, so the processor overlaps their
 * misses, and the names are in the cache when they are copied
 * (docs/performance.md#glob-gathers-names-before-it-copies-them).
 */
export function gatherNames(listing: GlobListing, order: Uint32Array, from: number, count: number, times: boolean): void {
  const { bytes, nameStart, nameEnd, seconds, nanos } = listing
  const { start, end, first } = gathered
  for (let k = 0; k < count; k += 1) {
    const file = order[from + k]!
    const at = nameStart[file]!
    start[k] = at
    end[k] = nameEnd[file]!
    first[k] = bytes[at]!
    if (times) {
      gathered.seconds[k] = seconds[file]!
      gathered.nanos[k] = nanos[file]!
    }
  }
}

/**
 * Writes plain paths from `cursor` into `block` until one is not plain or would not fit; moves the
 * cursor past those written. A plain function, not part of the generator, since only a plain
 * function's loop is optimized while it runs. The names are gathered (`gatherNames`) a batch at a
 * time before any is copied.
 */
function writePlainPaths(
  listing: GlobListing,
  order: Uint32Array,
  prefix: Buffer | undefined,
  block: Buffer,
  cursor: { index: number; used: number },
): void {
  if (prefix === undefined) return
  const { bytes } = listing
  // Names are copied four bytes at a time: most are too short for a native copy to pay for its call.
  const from = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const to = new DataView(block.buffer, block.byteOffset, block.byteLength)
  let { index, used } = cursor
  while (index < order.length) {
    const count = Math.min(GATHER, order.length - index)
    gatherNames(listing, order, index, count, false)
    let k = 0
    for (; k < count; k += 1) {
      let start = gathered.start[k]!
      const end = gathered.end[k]!
      if (!isPlain(listing, start, end)) break
      // Shown without the `./` rg may print.
      if (end - start >= 2 && gathered.first[k] === 0x2e && bytes[start + 1] === 0x2f) start += 2
      if (used + prefix.length + end - start + 1 > BLOCK_BYTES) break
      for (let p = 0; p < prefix.length; p += 1) block[used++] = prefix[p]!
      if (end - start > 128) used += bytes.copy(block, used, start, end)
      else {
        let at = start
        for (; at + 4 <= end; at += 4, used += 4) to.setUint32(used, from.getUint32(at))
        for (; at < end; at += 1) block[used++] = bytes[at]!
      }
      block[used++] = LF
    }
    index += k
    if (k < count) break
  }
  cursor.index = index
  cursor.used = used
}

/** A spill cut at `spillMaxBytes`: set once the paths pass it, with how many whole paths were saved. */
export interface PathsCut {
  maxBytes: number
  cut?: { saved: number }
}

/**
 * `blocks` up to the last whole path that fits `plan.maxBytes` (docs/design.md#results-bigger-than-memory):
 * past it the rest is not written, and `plan.cut` says how many paths were.
 */
export function* cutPathBlocks(blocks: Iterable<Uint8Array>, plan: PathsCut): Generator<Uint8Array> {
  let written = 0
  let lines = 0
  for (const block of blocks) {
    if (written + block.length > plan.maxBytes) {
      const room = plan.maxBytes - written
      const end = room === 0 ? 0 : Buffer.from(block.buffer, block.byteOffset, block.length).lastIndexOf(LF, room - 1) + 1
      plan.cut = { saved: lines + countLines(block, end) }
      if (end > 0) yield block.subarray(0, end)
      return
    }
    written += block.length
    lines += countLines(block, block.length)
    yield block
  }
}

/** Line feeds in `block[0, end)`. */
function countLines(block: Uint8Array, end: number): number {
  let lines = 0
  for (let at = block.indexOf(LF); at !== -1 && at < end; at = block.indexOf(LF, at + 1)) lines += 1
  return lines
}
