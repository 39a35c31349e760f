// A build's postings: (trigram, file) pairs coded into segments by key, then merged into the key table and gap-coded postings.
// Loaded by the build's worker threads too, so it imports nothing that loads @dsh/core.
import { KEY_SPACE } from './trigrams.js'

// Pairs collected before they are coded into a segment: 10 bytes each.
const SEGMENT_PAIRS = 1 << 22

/** The bytes of a varint (7 bits a byte, low first) of a value below 2^32. */
function varintBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5
}

/**
 * The bytes of a dense list of an index of `files` files (docs/design.md#the-index-file): two that no
 * gap-coded list starts with (0x80 0x00, a gap of 0 in two bytes, which no list's coder writes), then
 * each file's two bytes of positions in file order, 0 for a file without the key. A list is coded so
 * when that is shorter, that is when it holds more than about two files in three.
 */
export function denseListBytes(files: number): number {
  return 2 + 2 * files
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

/**
 * Collects (key, file, positions) postings, files in ascending order, and codes them into segments.
 * The pairs are not sorted: a first pass gives each key of the batch a slot and sizes its list (the
 * gaps are known as the files come in order), the slots are put in key order by a map of the keys
 * present, and a second pass writes each pair's gap and positions at its list's place. Two passes
 * over the pairs where a radix sort took two and a coding pass, and no pairs moved: 12 s of a
 * 500,000-file build's 34 s a worker went to the sort and coding.
 */
export class PostingsBuilder {
  private readonly pairKeys: Uint32Array
  private readonly pairFiles: Uint32Array
  private readonly pairPositions: Uint16Array
  // Each key's slot in the batch, plus one (0: none yet); only the batch's keys are set, and cleared after.
  private readonly slotOf = new Int32Array(KEY_SPACE)
  // A slot's key, its list's bytes and then where its next bytes go, and the last file it was given.
  private readonly slotKeys: Uint32Array
  private readonly slotAt: Uint32Array
  private readonly slotLast: Int32Array
  // The keys present, one bit each: read in order, the batch's keys sorted.
  private readonly present = new Uint32Array(KEY_SPACE >>> 5)
  // A segment's postings as they are coded, reused and grown: only the copy a segment keeps is memory touched anew.
  private data = new Uint8Array(1 << 16)
  private count = 0
  private segments: Segment[] = []

  /** `segmentPairs`: pairs a segment holds (tests make it small to merge many). */
  constructor(private readonly segmentPairs = SEGMENT_PAIRS) {
    this.pairKeys = new Uint32Array(segmentPairs)
    this.pairFiles = new Uint32Array(segmentPairs)
    this.pairPositions = new Uint16Array(segmentPairs)
    this.slotKeys = new Uint32Array(segmentPairs)
    this.slotAt = new Uint32Array(segmentPairs)
    this.slotLast = new Int32Array(segmentPairs)
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

  /** Codes the pairs into a segment, each key's files in the ascending order they came in. */
  private flush(): void {
    const n = this.count
    if (n === 0) return
    const { pairKeys, pairFiles, pairPositions, slotOf, slotKeys, slotAt, slotLast, present } = this
    // Pass one: a slot a key, and its list's bytes; the pair keeps its slot in place of its key.
    let slots = 0
    for (let i = 0; i < n; i++) {
      const key = pairKeys[i]!
      let slot = slotOf[key]! - 1
      if (slot < 0) {
        slot = slots++
        slotOf[key] = slot + 1
        slotKeys[slot] = key
        slotAt[slot] = 0
        slotLast[slot] = -1
        present[key >>> 5]! |= 1 << (key & 31)
      }
      const file = pairFiles[i]!
      slotAt[slot]! += varintBytes(file - slotLast[slot]! - 1) + 2
      slotLast[slot] = file
      pairKeys[i] = slot
    }
    // The keys in order, each list's start, and its last file; the slots' counts become where their lists go.
    const keys = new Uint32Array(slots)
    const starts = new Uint32Array(slots + 1)
    const last = new Uint32Array(slots)
    let k = 0
    let total = 0
    for (let word = 0; word < present.length; word++) {
      const bits = present[word]!
      if (bits === 0) continue
      present[word] = 0
      for (let rest = bits; rest !== 0; rest &= rest - 1) {
        const key = (word << 5) | (31 - Math.clz32(rest & -rest))
        const slot = slotOf[key]! - 1
        slotOf[key] = 0
        keys[k] = key
        starts[k] = total
        last[k] = slotLast[slot]!
        total += slotAt[slot]!
        slotAt[slot] = starts[k]!
        slotLast[slot] = -1
        k++
      }
    }
    starts[slots] = total
    if (this.data.length < total) this.data = new Uint8Array(Math.max(total, this.data.length * 2))
    const { data } = this
    // Pass two: each pair's gap and positions at its list's place.
    for (let i = 0; i < n; i++) {
      const slot = pairKeys[i]!
      const file = pairFiles[i]!
      let at = slotAt[slot]!
      let v = file - slotLast[slot]! - 1
      while (v >= 0x80) {
        data[at++] = (v & 0x7f) | 0x80
        v >>>= 7
      }
      data[at++] = v
      const positions = pairPositions[i]!
      data[at++] = positions & 0xff
      data[at++] = positions >>> 8
      slotAt[slot] = at
      slotLast[slot] = file
    }
    this.segments.push({ keys, starts, last, data: data.slice(0, total) })
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

// The merge's output is made in chunks of this size, in two buffers by turns, so the postings are never whole in memory.
const CHUNK_BYTES = 1 << 22

/** The index's key table and postings, merged from segments: a list in gaps, or dense (`denseListBytes`) where that is shorter. */
export interface MergedPostings {
  keys: Uint32Array
  /** Where each key's list starts in the postings; one more entry, their length. */
  starts: Uint32Array
  /**
   * The postings, made as they are pulled, in chunks that take turns in two buffers: a chunk holds
   * until the one after the next is pulled, so it must be written (or copied) by then. One write can
   * be in flight while the next chunk is made.
   */
  postings: Iterable<Uint8Array>
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
 * Merges segments into one sorted key table and postings, gap-coded or dense (`denseListBytes`), of an
 * index of `files` files, made in chunks of `chunkBytes` (tests make them small). The segments come in the order of
 * their files: every id of one is below every id of the next (one builder's segments, or the segments
 * of contiguous id ranges ordered by their first id). Each key's lists are chained in segment order
 * and every list sized first, so the postings can be made in order as they are written: a build's
 * index is not first made whole in memory (on this VM, memory touched for the first time costs about
 * 3 µs a KB: 3.5 s for a 1.16 GB index), and the work grows with the lists, not keys times segments.
 */
export function mergeSegments(segments: readonly Segment[], files: number, chunkBytes = CHUNK_BYTES): MergedPostings {
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
  // A list longer in gaps than dense is coded dense.
  const denseBytes = denseListBytes(files)
  const dense = new Uint8Array(distinct)
  for (let k = 0; k < distinct; k++) {
    if (starts[k + 1]! <= denseBytes) continue
    dense[k] = 1
    starts[k + 1] = denseBytes
  }
  for (let k = 0; k < distinct; k++) starts[k + 1]! += starts[k]!
  return { keys, starts, postings: chunks(segments, bases, head, next, dense, files, chunkBytes) }
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
function* chunks(
  segments: readonly Segment[],
  bases: Uint32Array,
  head: Int32Array,
  next: Int32Array,
  dense: Uint8Array,
  files: number,
  chunkBytes: number,
): Generator<Uint8Array> {
  const buffers = [new Uint8Array(chunkBytes), new Uint8Array(chunkBytes)]
  let turn = 0
  let out = buffers[turn]!
  let o = 0
  let s = 0
  /** The chunk so far goes out, and the other buffer takes its turn. */
  function* turnOut(): Generator<Uint8Array> {
    yield out.subarray(0, o)
    out = buffers[(turn ^= 1)]!
    o = 0
  }
  /** `n` zero bytes, in as many chunks as they fill. */
  function* zeros(n: number): Generator<Uint8Array> {
    for (let left = n; left > 0;) {
      if (o === out.length) yield* turnOut()
      const k = Math.min(left, out.length - o)
      out.fill(0, o, o + k)
      o += k
      left -= k
    }
  }
  for (let slot = 0; slot < head.length; slot++) {
    if (dense[slot] === 1) {
      if (o + 2 > out.length) yield* turnOut()
      out[o++] = 0x80
      out[o++] = 0
      // The next file whose positions go out. The key's lists come in file order, each one's gaps from
      // -1; a file holds a key where it starts, so its mask is never 0, which reads as no posting.
      let written = 0
      for (let entry = head[slot]!; entry !== -1; entry = next[entry]!) {
        // A list a segment: each entry is in a segment after the last one's (a search, once a list).
        s = segmentOf(bases, entry)
        const { data, starts } = segments[s]!
        const c = entry - bases[s]!
        let at = starts[c]!
        const end = starts[c + 1]!
        let id = -1
        while (at < end) {
          let byte = data[at++]!
          let gap = byte & 0x7f
          for (let shift = 128; byte >= 0x80; shift *= 128) {
            byte = data[at++]!
            gap += (byte & 0x7f) * shift
          }
          id += gap + 1
          // Most files of a dense list hold its key: no zeros before them, and no call made for none.
          const skipped = 2 * (id - written)
          if (o + skipped + 2 > out.length) {
            yield* zeros(skipped)
            if (o + 2 > out.length) yield* turnOut()
          } else if (skipped !== 0) {
            out.fill(0, o, o + skipped)
            o += skipped
          }
          out[o++] = data[at++]!
          out[o++] = data[at++]!
          written = id + 1
        }
      }
      yield* zeros(2 * (files - written))
      continue
    }
    let previous = -1
    for (let entry = head[slot]!; entry !== -1; entry = next[entry]!) {
      // The segment whose entries (numbered together, segment after segment) hold this one.
      if (entry < bases[s]! || entry >= bases[s + 1]!) s = segmentOf(bases, entry)
      const segment = segments[s]!
      const c = entry - bases[s]!
      const [gap, from] = firstGap(segment.data, segment.starts[c]!)
      const length = segment.starts[c + 1]! - from
      // Room for the gap (at most 5 bytes) and the list's bytes, or the chunk goes out first.
      if (o > 0 && o + 5 + length > out.length) yield* turnOut()
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
        yield* turnOut()
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
