// A build's postings: (trigram, file) pairs sorted into segments, then merged into the key table and gap-coded postings.
// Loaded by the build's worker threads too, so it imports nothing that loads @dsh/core.
import { KEY_SPACE } from './trigrams.js'

// Pairs collected before they are sorted into a segment: 10 bytes each, and 10 more to sort them.
const SEGMENT_PAIRS = 1 << 22
// A radix sort pass takes 12 bits of a 24-bit key.
const RADIX_BITS = 12
const RADIX = 1 << RADIX_BITS

/** Varints (7 bits a byte, low first) written into one growing byte array. */
export class VarintBytes {
  private data: Uint8Array
  length = 0

  constructor(capacity = 1 << 16) {
    this.data = new Uint8Array(capacity)
  }

  /** Appends a value below 2^32. */
  write(value: number): void {
    if (this.length + 5 > this.data.length) this.reserve(5)
    let v = value
    while (v >= 0x80) {
      this.data[this.length++] = (v & 0x7f) | 0x80
      v >>>= 7
    }
    this.data[this.length++] = v
  }

  /** Appends a 16-bit value, low byte first. */
  write16(value: number): void {
    if (this.length + 2 > this.data.length) this.reserve(2)
    this.data[this.length++] = value & 0xff
    this.data[this.length++] = value >>> 8
  }

  /** The bytes written, without a copy. */
  view(): Uint8Array {
    return this.data.subarray(0, this.length)
  }

  private reserve(more: number): void {
    const next = new Uint8Array(Math.max(this.data.length * 2, this.length + more))
    next.set(this.data.subarray(0, this.length))
    this.data = next
  }
}

/**
 * One batch of postings, sorted by key: each key's file ids as gaps (`id - previous - 1`, the first
 * from -1, as in the index), each followed by its two bytes of positions, and each key's last id, so
 * that a merge copies a list's bytes and re-codes only its first gap. Each array has a buffer of its own, so a worker can transfer it.
 */
export interface Segment {
  keys: Uint32Array
  starts: Uint32Array
  last: Uint32Array
  data: Uint8Array
}

/** Collects (key, file, positions) postings, files in ascending order, and sorts them into segments. */
export class PostingsBuilder {
  private readonly pairKeys: Uint32Array
  private readonly pairFiles: Uint32Array
  private readonly pairPositions: Uint16Array
  private readonly otherKeys: Uint32Array
  private readonly otherFiles: Uint32Array
  private readonly otherPositions: Uint16Array
  private readonly starts: Uint32Array
  // A segment's postings as they are coded, reused: only the copy a segment keeps is memory touched anew.
  private readonly data: VarintBytes
  private count = 0
  private segments: Segment[] = []

  /** `segmentPairs`: pairs a segment holds (tests make it small to merge many). */
  constructor(private readonly segmentPairs = SEGMENT_PAIRS) {
    this.pairKeys = new Uint32Array(segmentPairs)
    this.pairFiles = new Uint32Array(segmentPairs)
    this.pairPositions = new Uint16Array(segmentPairs)
    this.otherKeys = new Uint32Array(segmentPairs)
    this.otherFiles = new Uint32Array(segmentPairs)
    this.otherPositions = new Uint16Array(segmentPairs)
    this.starts = new Uint32Array(segmentPairs + 1)
    this.data = new VarintBytes(segmentPairs * 4)
  }

  /**
   * Adds a file's postings: each of its distinct keys once, the first `count` of `keys`, each with the
   * mask of where it starts in `positions` (see `TrigramCollector`). Files come in ascending order.
   */
  addFile(file: number, keys: Uint32Array, positions: Uint16Array, count: number): void {
    const { pairKeys, pairFiles, pairPositions } = this
    for (let k = 0; k < count; k++) {
      if (this.count === this.segmentPairs) this.flush()
      const at = this.count++
      pairKeys[at] = keys[k]!
      pairFiles[at] = file
      pairPositions[at] = positions[k]!
    }
  }

  /**
   * Sorts the pairs by key into a segment: a radix sort of two stable passes, 12 bits each, that
   * moves the pairs themselves (reads in order, writes to 4,096 places), so each key's files stay in
   * the ascending order they came in.
   */
  private flush(): void {
    const n = this.count
    if (n === 0) return
    const { pairKeys, pairFiles, pairPositions, otherKeys, otherFiles, otherPositions } = this
    const counts = new Uint32Array(RADIX + 1)
    for (let i = 0; i < n; i++) counts[(pairKeys[i]! & (RADIX - 1)) + 1]!++
    for (let b = 0; b < RADIX; b++) counts[b + 1]! += counts[b]!
    for (let i = 0; i < n; i++) {
      const key = pairKeys[i]!
      const to = counts[key & (RADIX - 1)]!++
      otherKeys[to] = key
      otherFiles[to] = pairFiles[i]!
      otherPositions[to] = pairPositions[i]!
    }
    counts.fill(0)
    for (let i = 0; i < n; i++) counts[(otherKeys[i]! >>> RADIX_BITS) + 1]!++
    for (let b = 0; b < RADIX; b++) counts[b + 1]! += counts[b]!
    for (let i = 0; i < n; i++) {
      const key = otherKeys[i]!
      const to = counts[key >>> RADIX_BITS]!++
      pairKeys[to] = key
      pairFiles[to] = otherFiles[i]!
      pairPositions[to] = otherPositions[i]!
    }
    // Sorted now in the pair arrays; the other keys and files arrays are free for the key table.
    const keys = otherKeys
    const last = otherFiles
    const { starts, data } = this
    data.length = 0
    let distinct = 0
    let previous = -1
    for (let i = 0; i < n; i++) {
      const key = pairKeys[i]!
      const file = pairFiles[i]!
      if (distinct === 0 || keys[distinct - 1] !== key) {
        if (distinct > 0) last[distinct - 1] = previous
        keys[distinct] = key
        starts[distinct] = data.length
        distinct++
        previous = -1
      }
      data.write(file - previous - 1)
      data.write16(pairPositions[i]!)
      previous = file
    }
    last[distinct - 1] = previous
    starts[distinct] = data.length
    this.segments.push({
      keys: keys.slice(0, distinct),
      starts: starts.slice(0, distinct + 1),
      last: last.slice(0, distinct),
      data: data.view().slice(),
    })
    this.count = 0
  }

  /** The segments of the pairs added since the last call, in the order their files came; the builder starts empty again. */
  takeSegments(): Segment[] {
    this.flush()
    const taken = this.segments
    this.segments = []
    return taken
  }
}

/**
 * What a segment surely adds to the index: its postings. Its keys are not counted, since the chunks'
 * segments repeat most keys that the index holds once; the build checks the whole file's size after.
 */
export function segmentBytes(segment: Segment): number {
  return segment.data.length
}

// The merge's output is made in chunks of this size, one buffer reused, so the postings are never whole in memory.
const CHUNK_BYTES = 1 << 22

/** The index's key table and postings, merged from segments. */
export interface MergedPostings {
  keys: Uint32Array
  /** Where each key's list starts in the postings; one more entry, their length. */
  starts: Uint32Array
  /**
   * The postings, made as they are pulled, in chunks that share one buffer: a chunk holds until the
   * next is pulled, so it must be written (or copied) first.
   */
  postings: Iterable<Uint8Array>
}

/** The bytes of a varint (see `VarintBytes.write`) of a value below 2^32. */
function varintBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5
}

/** The first gap of a segment's list at `from`: its value, and where the list's bytes after it start. */
function firstGap(data: Uint8Array, from: number): [gap: number, after: number] {
  let value = 0
  let shift = 1
  for (;;) {
    const byte = data[from++]!
    value += (byte & 0x7f) * shift
    if (byte < 0x80) return [value, from]
    shift *= 128
  }
}

/**
 * Merges segments into one sorted key table and gap-coded postings. The segments come in the order of
 * their files: every id of one is below every id of the next (one builder's segments, or the segments
 * of contiguous id ranges ordered by their first id). Each key's lists are chained in segment order
 * and every list sized first, so the postings can be made in order as they are written: a build's
 * index is not first made whole in memory (on this VM, memory touched for the first time costs about
 * 3 µs a KB: 3.5 s for a 1.16 GB index), and the work grows with the lists, not keys times segments.
 */
export function mergeSegments(segments: readonly Segment[]): MergedPostings {
  let entries = 0
  for (const s of segments) entries += s.keys.length
  // Every key present, as bits of a 2 MB map read in order: the sorted distinct keys without a sort.
  const present = new Uint32Array(KEY_SPACE >>> 5)
  for (const s of segments) for (let c = 0; c < s.keys.length; c++) present[s.keys[c]! >>> 5]! |= 1 << (s.keys[c]! & 31)
  const all = new Uint32Array(entries)
  let distinct = 0
  for (let word = 0; word < present.length; word++) {
    for (let bits = present[word]!; bits !== 0; bits &= bits - 1) all[distinct++] = (word << 5) | (31 - Math.clz32(bits & -bits))
  }
  const keys = all.slice(0, distinct)
  // Each segment's lists chained by key (entries numbered across the segments in order), and sized.
  const head = new Int32Array(distinct).fill(-1)
  const tail = new Int32Array(distinct)
  const next = new Int32Array(entries).fill(-1)
  const lastId = new Int32Array(distinct).fill(-1)
  const starts = new Uint32Array(distinct + 1)
  const bases = new Uint32Array(segments.length + 1)
  let entry = 0
  segments.forEach((segment, s) => {
    bases[s] = entry
    // The segment's keys ascend, so each one's slot is found by a search forward from the last one's.
    let slot = 0
    for (let c = 0; c < segment.keys.length; c++, entry++) {
      slot = slotFrom(keys, slot, segment.keys[c]!)
      if (head[slot] === -1) head[slot] = entry
      else next[tail[slot]!] = entry
      tail[slot] = entry
      const [gap, after] = firstGap(segment.data, segment.starts[c]!)
      starts[slot + 1]! += varintBytes(gap - lastId[slot]! - 1) + segment.starts[c + 1]! - after
      lastId[slot] = segment.last[c]!
    }
  })
  bases[segments.length] = entry
  for (let k = 0; k < distinct; k++) starts[k + 1]! += starts[k]!
  return { keys, starts, postings: chunks(segments, bases, head, next) }
}

/** The slot of `key` in `keys` (ascending, and holding it), searched for forward from `from`. */
function slotFrom(keys: Uint32Array, from: number, key: number): number {
  // Steps doubling until past the key, then halving back to it.
  let step = 1
  let high = from
  while (keys[high]! < key) {
    from = high
    high = Math.min(keys.length - 1, high + step)
    step *= 2
  }
  while (from < high) {
    const mid = (from + high) >>> 1
    if (keys[mid]! < key) from = mid + 1
    else high = mid
  }
  return high
}

/** The merged postings in key order, each key's lists in segment order, made a chunk at a time. */
function* chunks(segments: readonly Segment[], bases: Uint32Array, head: Int32Array, next: Int32Array): Generator<Uint8Array> {
  const out = new Uint8Array(CHUNK_BYTES)
  let o = 0
  let s = 0
  for (let slot = 0; slot < head.length; slot++) {
    let previous = -1
    for (let entry = head[slot]!; entry !== -1; entry = next[entry]!) {
      // The segment whose entries (numbered together, segment after segment) hold this one.
      if (entry < bases[s]! || entry >= bases[s + 1]!) s = segmentOf(bases, entry)
      const segment = segments[s]!
      const c = entry - bases[s]!
      const [gap, from] = firstGap(segment.data, segment.starts[c]!)
      const length = segment.starts[c + 1]! - from
      // Room for the gap (at most 5 bytes) and the list's bytes, or the chunk goes out first.
      if (o > 0 && o + 5 + length > out.length) {
        yield out.subarray(0, o)
        o = 0
      }
      // The first gap was from -1: its id, coded again from the previous segment's last id.
      let v = gap - previous - 1
      while (v >= 0x80) {
        out[o++] = (v & 0x7f) | 0x80
        v >>>= 7
      }
      out[o++] = v
      previous = segment.last[c]!
      if (o + length > out.length) {
        // A list longer than a chunk goes out as it lies in its segment, after the gap.
        yield out.subarray(0, o)
        o = 0
        yield segment.data.subarray(from, from + length)
      } else if (length < 64) {
        // Most lists are a few bytes: copied by hand, without a view made for each.
        for (let i = from; i < from + length; i++) out[o++] = segment.data[i]!
      } else {
        out.set(segment.data.subarray(from, from + length), o)
        o += length
      }
    }
  }
  if (o > 0) yield out.subarray(0, o)
}

/** The segment whose entries, numbered from `bases[s]` on, hold `entry`. */
function segmentOf(bases: Uint32Array, entry: number): number {
  let low = 0
  let high = bases.length - 2
  while (low < high) {
    const mid = (low + high + 1) >>> 1
    if (bases[mid]! <= entry) low = mid
    else high = mid - 1
  }
  return low
}
