// A chunk crosses to and from a worker by transfer: its paths packed into buffers of their own, and every buffer of its result listed once.
import { describe, expect, it } from 'vitest'
import { chunkTransfers, packChunk, type KeyedChunk } from '../src/key-files.js'
import { PostingsBuilder } from '../src/postings.js'

describe('a chunk in transfer', () => {
  it('packs paths end to end into a buffer that holds nothing else', () => {
    // Small Buffers come from Node's shared pool: the packed copy must not be a view of it.
    const task = packChunk(3, 120, [Buffer.from('/t/a.ts'), Buffer.from('/t/\xff.ts', 'latin1')])
    expect(task).toMatchObject({ chunk: 3, first: 120, ends: Uint32Array.from([7, 14]) })
    expect(task.paths.buffer.byteLength).toBe(14)
    expect(Buffer.from(task.paths).toString('latin1')).toBe('/t/a.ts/t/\xff.ts')
  })

  it('lists each buffer of a keyed chunk once, so it moves whole and leaves nothing behind', () => {
    const builder = new PostingsBuilder(3)
    for (let file = 0; file < 4; file++) builder.addFile(file, Uint32Array.from([10, 20 + file]), Uint16Array.from([1, 2]), 2)
    const keyed: KeyedChunk = {
      chunk: 0,
      flags: Uint8Array.from([0, 1, 0, 0]),
      seconds: Float64Array.from([1, Number.NaN, 3, -4]),
      nanos: Uint32Array.from([5, 0, 7, 999_999_999]),
      contentBytes: 9,
      segments: builder.takeSegments(),
    }
    expect(keyed.segments.length).toBeGreaterThan(1)
    const copy = structuredClone(keyed)
    const transfer = chunkTransfers(keyed)
    expect(new Set(transfer).size).toBe(transfer.length)
    // A buffer listed twice, or shared by two arrays, would throw DataCloneError here.
    const moved = structuredClone(keyed, { transfer })
    expect(moved).toEqual(copy)
    expect([keyed.flags.length, keyed.seconds.length, keyed.nanos.length]).toEqual([0, 0, 0])
    for (const s of keyed.segments) expect([s.keys.length, s.starts.length, s.last.length, s.data.length]).toEqual([0, 0, 0, 0])
  })
})
