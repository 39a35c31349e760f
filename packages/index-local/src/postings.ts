// A build's postings: (trigram, file) pairs sorted into segments, then merged into the key table and gap-coded postings.
// Loaded by the build's worker threads too, so it imports nothing that loads @dsh/core.

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

  /** Appends bytes as they are. */
  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.data.length) this.reserve(bytes.length)
    this.data.set(bytes, this.length)
    this.length += bytes.length
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
    const { starts } = this
    const data = new VarintBytes(n * 4)
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

/**
 * Merges segments into one sorted key table and gap-coded postings. The segments come in the order of
 * their files: every id of one is below every id of the next (one builder's segments, or the segments
 * of contiguous id ranges ordered by their first id).
 */
export function mergeSegments(segments: readonly Segment[]): { keys: Uint32Array; starts: Uint32Array; postings: Uint8Array[] } {
  let all = new Uint32Array(segments.reduce((n, s) => n + s.keys.length, 0))
  let at = 0
  for (const s of segments) {
    all.set(s.keys, at)
    at += s.keys.length
  }
  all.sort()
  let distinct = 0
  for (let k = 0; k < all.length; k++) if (k === 0 || all[k] !== all[k - 1]) all[distinct++] = all[k]!
  all = all.slice(0, distinct)
  const starts = new Uint32Array(distinct + 1)
  // Each list's bytes, plus room for its first gap coded anew (at most five bytes).
  const out = new VarintBytes(segments.reduce((n, s) => n + s.data.length + s.keys.length * 5, 0) + 5)
  const cursors = new Uint32Array(segments.length)
  for (let k = 0; k < distinct; k++) {
    const key = all[k]!
    starts[k] = out.length
    let previous = -1
    for (let s = 0; s < segments.length; s++) {
      const segment = segments[s]!
      const c = cursors[s]!
      if (c >= segment.keys.length || segment.keys[c] !== key) continue
      let from = segment.starts[c]!
      // The first gap was from -1: its id, coded again from the previous segment's last id.
      let first = 0
      let shift = 1
      for (;;) {
        const byte = segment.data[from++]!
        first += (byte & 0x7f) * shift
        if (byte < 0x80) break
        shift *= 128
      }
      out.write(first - previous - 1)
      out.append(segment.data.subarray(from, segment.starts[c + 1]))
      previous = segment.last[c]!
      cursors[s] = c + 1
    }
  }
  starts[distinct] = out.length
  return { keys: all, starts, postings: [out.view()] }
}
