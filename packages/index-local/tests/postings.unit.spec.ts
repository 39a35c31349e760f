// A build's postings: sorted segments merged into the index's lists, equal to the lists made the slow way.
import { describe, expect, it } from 'vitest'
import { FilePaths, isDense, readPostingList, readPostings, unreadTimes, type IndexData } from '../src/format.js'
import type { Segment } from '../src/postings.js'
import { denseListBytes, mergeSegments, PostingsBuilder, segmentBytes } from '../src/postings.js'

/** The merged postings as an index a search reads them from. */
function asIndex(merged: ReturnType<typeof mergeSegments>, files: number): IndexData {
  // Each chunk copied only once the next is pulled, as a write in flight reads it: it holds till the one after.
  const chunks: Buffer[] = []
  let held: Uint8Array | undefined
  for (const chunk of merged.postings) {
    if (held !== undefined) chunks.push(Buffer.from(held))
    held = chunk
  }
  if (held !== undefined) chunks.push(Buffer.from(held))
  const postings = Buffer.concat(chunks)
  expect(postings.length).toBe(merged.starts[merged.keys.length])
  return {
    header: {
      root: '/',
      builtAtNs: '0',
      covers: '',
      files,
      dirs: 0,
      trigrams: merged.keys.length,
      filePathBytes: 0,
      dirPathBytes: 0,
      postingBytes: 0,
    },
    checksum: '',
    files: new FilePaths(undefined),
    // Only the header's count is read with the lists: a table for 2^29 files would touch 6.5 GB (the
    // times alone 4 GiB of NaN), which took this test past its time on a loaded machine.
    fileFlags: new Uint8Array(Math.min(files, 4096)),
    fileTimes: unreadTimes(Math.min(files, 4096)),
    dirs: new Map(),
    keys: merged.keys,
    starts: merged.starts,
    postings: (start, end) => postings.subarray(start, end),
  }
}

describe('PostingsBuilder', () => {
  it('merges segments of any size into the lists, and the positions, each key would have had', () => {
    let seed = 99
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8
    const expected = new Map<number, number[]>()
    const expectedPositions = new Map<number, number[]>()
    const files = 3000
    // Small segments, so most keys' lists span several; ids past 2^14 for three-byte gaps; keys across all 24 bits.
    const builder = new PostingsBuilder(97)
    // Taken in parts as a build's chunks are, so segments of one part end before a full 97 pairs.
    const segments: Segment[] = []
    for (let file = 0; file < files; file++) {
      if (file % 500 === 0) segments.push(...builder.takeSegments())
      const id = file * 11
      const keys = new Set<number>()
      for (let k = random() % 12; k > 0; k--) keys.add(random() % 40 === 0 ? random() & 0xffffff : random() % 64)
      // A file's keys in arrays longer than it has (as the collector's are), so only `count` of them are read.
      const fileKeys = new Uint32Array(keys.size + 3).fill(0xabcdef)
      const filePositions = new Uint16Array(keys.size + 3)
      let count = 0
      for (const key of keys) {
        const positions = random() & 0xffff
        fileKeys[count] = key
        filePositions[count++] = positions
        expected.set(key, [...(expected.get(key) ?? []), id])
        expectedPositions.set(key, [...(expectedPositions.get(key) ?? []), positions])
      }
      builder.addFile(id, fileKeys, filePositions, count)
    }
    segments.push(...builder.takeSegments())
    expect(segments.length).toBeGreaterThan(100)
    const merged = mergeSegments(segments, files * 11)
    const index = asIndex(merged, files * 11)
    expect([...merged.keys]).toEqual([...expected.keys()].sort((a, b) => a - b))
    merged.keys.forEach((key, slot) => {
      const list = readPostingList(index, slot)
      expect([...list.ids]).toEqual(expected.get(key))
      expect([...list.positions]).toEqual(expectedPositions.get(key))
    })
    // Read only as far as the ids asked about, keeping those the list holds.
    const first = expected.get(merged.keys[0]!)!
    const within = Uint32Array.from([first[1]!, first[1]! + 1, first[3]!])
    expect([...readPostings(index, 0, within)]).toEqual([first[1], first[3]])
    const firstPositions = expectedPositions.get(merged.keys[0]!)!
    expect([...readPostingList(index, 0, within).positions]).toEqual([firstPositions[1], firstPositions[3]])
    expect([...readPostings(index, 0, new Uint32Array(0))]).toEqual([])
  })

  it('makes the postings a chunk at a time, a list longer than a chunk included', () => {
    // One segment of 1,500,000 files, then one of 100,000 more. Keys 0x010203, 0x020304 and 0x030405 in
    // every 2nd, 3rd and 5th file: 4.7 MB of lists, so the chunk they fill goes out and the next one is
    // made while it is held. Then 0x616263 in every file (a 4.5 MB list, past the 4 MB chunk) and a
    // short list after it.
    const builder = new PostingsBuilder(1 << 22)
    const keys = new Uint32Array(5)
    const positions = Uint16Array.from([1, 2, 3, 4, 5])
    const segments: Segment[] = []
    const files = 1_600_000
    const every = [
      [0x010203, 2],
      [0x020304, 3],
      [0x030405, 5],
      [0x7a7a7a, 100_000],
    ] as const
    for (let file = 0; file < files; file++) {
      if (file === 1_500_000) segments.push(...builder.takeSegments())
      keys[0] = 0x616263
      let count = 1
      for (const [key, step] of every) if (file % step === 0) keys[count++] = key
      builder.addFile(file, keys, positions, count)
    }
    segments.push(...builder.takeSegments())
    expect(segments.length).toBe(2)
    const merged = mergeSegments(segments, files)
    expect([...merged.keys]).toEqual([0x010203, 0x020304, 0x030405, 0x616263, 0x7a7a7a])
    const index = asIndex(merged, files)
    merged.keys.forEach((key, slot) => {
      const step = key === 0x616263 ? 1 : every.find(([k]) => k === key)![1]
      const { ids } = readPostingList(index, slot)
      expect(ids.length, key.toString(16)).toBe(Math.ceil(files / step))
      expect(
        ids.every((id, i) => id === i * step),
        key.toString(16),
      ).toBe(true)
    })
    expect(new Set(readPostingList(index, 3).positions)).toEqual(new Set([1]))
  })

  it('codes a list dense where that is shorter, across segments and chunks, and reads it as it would read the gaps', () => {
    let seed = 7
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8
    const files = 2000
    // Each key's share of the files, in 1/16ths: past about 2/3, dense. Key 4 skips a run of 300 files,
    // longer than a chunk; key 5 is in every file; key 6 in none of the first 400.
    const shares = [1, 8, 10, 11, 15, 16, 16]
    const expected = shares.map(() => [] as number[])
    const expectedPositions = shares.map(() => [] as number[])
    const builder = new PostingsBuilder(997)
    const segments: Segment[] = []
    const keys = new Uint32Array(shares.length)
    const positions = new Uint16Array(shares.length)
    for (let file = 0; file < files; file++) {
      if (file % 450 === 0) segments.push(...builder.takeSegments())
      let count = 0
      shares.forEach((share, key) => {
        if (key === 4 && file >= 1200 && file < 1500) return
        if (key === 6 && file < 400) return
        if (random() % 16 >= share) return
        keys[count] = key
        // Positions of every kind, never none: a file holds a key where it starts.
        positions[count++] = random() & 0xffff || 1
        expected[key]!.push(file)
        expectedPositions[key]!.push(positions[count - 1]!)
      })
      builder.addFile(file, keys, positions, count)
    }
    segments.push(...builder.takeSegments())
    // Chunks of many small sizes, so that a dense list's mark and masks each fall at a chunk's end.
    for (const chunkBytes of [...Array.from({ length: 24 }, (_, i) => 8 + i), 64, 1 << 22]) {
      const merged = mergeSegments(segments, files, chunkBytes)
      const index = asIndex(merged, files)
      expect(shares.map((_, slot) => isDense(index, slot))).toEqual([false, false, false, true, true, true, true])
      expect(merged.starts[4]! - merged.starts[3]!).toBe(denseListBytes(files))
      shares.forEach((_, slot) => {
        const list = readPostingList(index, slot)
        expect([...list.ids], `key ${slot}`).toEqual(expected[slot])
        expect([...list.positions], `key ${slot}`).toEqual(expectedPositions[slot])
        // The ids asked about: every third file, then none.
        const within = Uint32Array.from({ length: Math.ceil(files / 3) }, (_, i) => 3 * i + 1)
        const kept = expected[slot]!.filter((id) => id % 3 === 1)
        expect([...readPostings(index, slot, within)], `key ${slot}`).toEqual(kept)
        expect([...readPostingList(index, slot, within).positions]).toEqual(
          kept.map((id) => expectedPositions[slot]![expected[slot]!.indexOf(id)]),
        )
        expect([...readPostings(index, slot, new Uint32Array(0))]).toEqual([])
      })
    }
  })

  it('keeps a list in gaps when dense is no shorter, whose length a dense one has', () => {
    const builder = new PostingsBuilder(100)
    builder.addFile(0, Uint32Array.from([3]), Uint16Array.from([1]), 1)
    builder.addFile(1, Uint32Array.from([3]), Uint16Array.from([2]), 1)
    const merged = mergeSegments(builder.takeSegments(), 2)
    // Two postings of a byte of gap and two of positions: the six bytes a dense list of two files takes.
    expect([...merged.starts]).toEqual([0, denseListBytes(2)])
    const index = asIndex(merged, 2)
    expect(isDense(index, 0)).toBe(false)
    expect([...readPostingList(index, 0).positions]).toEqual([1, 2])
  })

  it("re-codes a list's first gap from the segment before, in as many bytes as it takes", () => {
    const builder = new PostingsBuilder(100)
    const one = Uint16Array.from([1, 1])
    builder.addFile(0, Uint32Array.from([0xa, 0xb]), one, 2)
    const segments = builder.takeSegments()
    builder.addFile(3_000_000, Uint32Array.from([0xa]), one, 1)
    segments.push(...builder.takeSegments())
    builder.addFile(2 ** 29, Uint32Array.from([0xb]), one, 1)
    segments.push(...builder.takeSegments())
    // Gaps of 2,999,999 (four bytes) and 2^29 - 1 (five), each after its list's first id.
    const merged = mergeSegments(segments, 2 ** 29 + 1)
    expect([...merged.starts]).toEqual([0, 3 + 6, 3 + 6 + 3 + 7])
    const index = asIndex(merged, 2 ** 29 + 1)
    expect([...readPostingList(index, 0).ids]).toEqual([0, 3_000_000])
    expect([...readPostingList(index, 1).ids]).toEqual([0, 2 ** 29])
  })

  it('merges nothing into no keys', () => {
    expect(new PostingsBuilder(100).takeSegments()).toEqual([])
    const none = mergeSegments([], 0)
    expect(none).toMatchObject({ keys: new Uint32Array(0), starts: Uint32Array.from([0]) })
    expect([...none.postings]).toEqual([])
  })

  it('counts a segment as its postings alone', () => {
    const builder = new PostingsBuilder(8)
    builder.addFile(0, Uint32Array.from([5, 9]), Uint16Array.from([1, 1]), 2)
    builder.addFile(200, Uint32Array.from([5]), Uint16Array.from([1]), 1)
    const [segment] = builder.takeSegments()
    // Key 5: gaps 0 and 199 (two bytes); key 9: gap 0; two bytes of positions each.
    expect(segmentBytes(segment!)).toBe(4 + 3 * 2)
  })
})
