// The listing newest first, ties by name: the time buckets sorted, each bucket's names compared past what they share.
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
 * calls give identical pages (docs/design.md#deterministic-pages). The parser has filed each file under
 * its time (docs/design.md#glob-sorts-bytes-in-buckets), so what is left is to sort the buckets (few:
 * 16k for 118k files), read each one's files off, and sort each bucket by name.
 */
export function sortNewestFirst(listing: GlobListing): Uint32Array {
  const { bytes, nameStart, nameEnd, times } = listing
  const { seconds, nanos, first, next } = times
  const names: Names = { bytes, words: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), nameStart, nameEnd }
  // Each bucket is one time, so no two compare equal.
  const byTime = Array.from({ length: times.count }, (_, bucket) => bucket).sort(
    (a, b) => seconds[b]! - seconds[a]! || nanos[b]! - nanos[a]!,
  )
  const order = new Uint32Array(listing.count)
  let at = 0
  for (const bucket of byTime) {
    const start = at
    for (let file = first[bucket]!; file !== -1; file = next[file]!) order[at++] = file
    if (at - start > 1) sortByName(names, order, start, at)
  }
  return order
}

// Buckets up to this size are sorted by insertion, in place: a native sort costs more to set up.
const INSERTION_MAX = 32

/**
 * Sorts `order[start, end)`, one bucket, by name. A bucket's files mostly share a directory, so the
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
