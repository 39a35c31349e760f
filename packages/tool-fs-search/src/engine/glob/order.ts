// The listing newest first, ties by name: the times radix sorted, each stretch of equal times' names compared past what they share.
import type { GlobListing } from './listing.js'

/** A listing's names, and a view of their bytes for reading four at a time. */
interface Names {
  bytes: Uint8Array
  words: DataView
  nameStart: Uint32Array
  nameEnd: Uint32Array
}

/**
 * The files newest modified first (docs/design.md#glob-lists-newest-first); ties by name, so identical
 * calls give identical pages (docs/design.md#deterministic-pages). The files are sorted by time with a
 * radix sort (docs/design.md#glob-sorts-bytes-by-time), then each stretch of equal times by name.
 */
export function sortNewestFirst(listing: GlobListing): Uint32Array {
  const { bytes, nameStart, nameEnd, seconds, nanos, count } = listing
  const names: Names = { bytes, words: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), nameStart, nameEnd }
  const order = newestFirst(count, seconds, nanos)
  for (let start = 0; start < count;) {
    const time = seconds[order[start]!]!
    const nano = nanos[order[start]!]!
    let end = start + 1
    while (end < count && seconds[order[end]!] === time && nanos[order[end]!] === nano) end += 1
    if (end - start > 1) sortByName(names, order, start, end)
    start = end
  }
  return order
}

// Times are sorted as two 32-bit keys relative to the newest, 11 bits a pass.
const KEY_RANGE = 2 ** 32
const DIGIT_BITS = 11
const DIGITS = 1 << DIGIT_BITS

/**
 * Indexes `0 .. count - 1` newest first, equal times in index order. A comparator sort of 100k times
 * took 70–120 ms; a radix sort takes a few: nanoseconds, then seconds (each counted down from the
 * newest, so the smallest key is the newest time), 11 bits a pass and only as many passes as their
 * spread needs. Seconds that are not whole or span 2^32 s or more take the comparator.
 */
export function newestFirst(count: number, seconds: Float64Array, nanos: Int32Array): Uint32Array {
  let minSeconds = Number.POSITIVE_INFINITY
  let maxSeconds = Number.NEGATIVE_INFINITY
  let minNanos = 0
  let maxNanos = 0
  let whole = true
  for (let file = 0; file < count; file += 1) {
    const time = seconds[file]!
    if (time < minSeconds) minSeconds = time
    if (time > maxSeconds) maxSeconds = time
    whole &&= Number.isInteger(time)
    minNanos = Math.min(minNanos, nanos[file]!)
    maxNanos = Math.max(maxNanos, nanos[file]!)
  }
  let order = unzeroed(count)
  for (let file = 0; file < count; file += 1) order[file] = file
  if (!whole || maxSeconds - minSeconds >= KEY_RANGE) {
    return order.sort((a, b) => seconds[b]! - seconds[a]! || nanos[b]! - nanos[a]! || a - b)
  }
  let spare = unzeroed(count)
  const keys = unzeroed(count)
  const counts = new Uint32Array(DIGITS)
  // Least significant first: a pass keeps the order of equal digits.
  for (const [key, newest, spread] of [
    [nanos, maxNanos, maxNanos - minNanos],
    [seconds, maxSeconds, maxSeconds - minSeconds],
  ] as const) {
    for (let file = 0; file < count; file += 1) keys[file] = newest - key[file]!
    for (let shift = 0; shift < 32 && spread >= 2 ** shift; shift += DIGIT_BITS) {
      counts.fill(0)
      for (let i = 0; i < count; i += 1) counts[(keys[i]! >>> shift) & (DIGITS - 1)]! += 1
      let sum = 0
      for (let digit = 0; digit < DIGITS; digit += 1) {
        const here = counts[digit]!
        counts[digit] = sum
        sum += here
      }
      for (let i = 0; i < count; i += 1) {
        const file = order[i]!
        spare[counts[(keys[file]! >>> shift) & (DIGITS - 1)]!++] = file
      }
      ;[order, spare] = [spare, order]
    }
  }
  return order
}

/** Indexes or keys for `count` files, not zeroed: each is written before it is read. */
function unzeroed(count: number): Uint32Array {
  const { buffer, byteOffset } = Buffer.allocUnsafeSlow(4 * count)
  return new Uint32Array(buffer, byteOffset, count)
}

// Buckets up to this size are sorted by insertion, in place: a native sort costs more to set up.
const INSERTION_MAX = 32

/**
 * Sorts `order[start, end)`, files of one time, by name. Such files mostly share a directory, so the
 * bytes all its names begin with are measured once and no comparison reads them again.
 */
function sortByName(names: Names, order: Uint32Array, start: number, end: number): void {
  const { nameStart, nameEnd } = names
  const head = order[start]!
  let shared = nameEnd[head]! - nameStart[head]!
  for (let i = start + 1; i < end && shared > 0; i += 1) {
    const file = order[i]!
    shared = sameLength(names, nameStart[head]!, nameStart[file]!, Math.min(shared, nameEnd[file]! - nameStart[file]!))
  }
  if (end - start > INSERTION_MAX) {
    order.set(
      Array.from(order.subarray(start, end)).sort((a, b) => compareNames(names, a, b, shared)),
      start,
    )
    return
  }
  for (let i = start + 1; i < end; i += 1) {
    const file = order[i]!
    let at = i
    for (; at > start && compareNames(names, order[at - 1]!, file, shared) > 0; at -= 1) order[at] = order[at - 1]!
    order[at] = file
  }
}

/** How many bytes from `a` and `b` are the same, up to `max`. */
function sameLength({ bytes, words }: Names, a: number, b: number, max: number): number {
  let i = 0
  while (i + 4 <= max && words.getUint32(a + i) === words.getUint32(b + i)) i += 4
  while (i < max && bytes[a + i] === bytes[b + i]) i += 1
  return i
}

/**
 * Compares two names whose first `from` bytes are the same as `<` compares their strings, by UTF-16
 * code units, on their UTF-8 bytes. The orders agree except where a character past U+FFFF (4 bytes, a
 * surrogate pair in UTF-16) meets one from U+E000 to U+FFFF (3 bytes led by EE or EF): UTF-16 puts
 * the pair first.
 */
function compareNames(names: Names, a: number, b: number, from: number): number {
  const { bytes, nameStart, nameEnd } = names
  const aStart = nameStart[a]!
  const bStart = nameStart[b]!
  const aLength = nameEnd[a]! - aStart
  const bLength = nameEnd[b]! - bStart
  const common = Math.min(aLength, bLength)
  // Past the shared bytes, four at a time to the first difference, then byte by byte to it.
  const i = from + sameLength(names, aStart + from, bStart + from, common - from)
  if (i === common) return aLength - bLength
  const x = bytes[aStart + i]!
  const y = bytes[bStart + i]!
  if (x >= 0xf0 && (y === 0xee || y === 0xef)) return -1
  if (y >= 0xf0 && (x === 0xee || x === 0xef)) return 1
  return x - y
}
