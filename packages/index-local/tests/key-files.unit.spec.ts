// A chunk's paths, packed end to end into a buffer of their own.
import { describe, expect, it } from 'vitest'
import { packChunk } from '../src/key-files.js'

describe('a chunk', () => {
  it('packs paths end to end into a buffer that holds nothing else', () => {
    // Small Buffers come from Node's shared pool: the packed copy must not be a view of it.
    const task = packChunk(3, 120, [Buffer.from('/t/a.ts'), Buffer.from('/t/\xff.ts', 'latin1')])
    expect(task).toMatchObject({ chunk: 3, first: 120, ends: Uint32Array.from([7, 14]) })
    expect(task.paths.buffer.byteLength).toBe(14)
    expect(Buffer.from(task.paths).toString('latin1')).toBe('/t/a.ts/t/\xff.ts')
  })
})
