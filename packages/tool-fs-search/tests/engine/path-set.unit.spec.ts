// The off-heap path set: what is in it, whatever the bytes, the collisions or the repeats.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { PathSet } from '../../src/engine/path-set.js'

/** A set of `paths` (latin1), laid out as rg prints them: each ended by a NUL. */
function pathSet(paths: readonly string[]): PathSet {
  const bytes = Buffer.from(paths.map((p) => `${p}\0`).join(''), 'latin1')
  const starts: number[] = []
  const ends: number[] = []
  let from = 0
  for (const p of paths) {
    starts.push(from)
    ends.push(from + p.length)
    from += p.length + 1
  }
  return new PathSet(bytes, Uint32Array.from(starts), Uint32Array.from(ends))
}

describe('PathSet', () => {
  it('holds exactly its entries, as a Set of the same strings does', () => {
    const latin1 = fc.string({ unit: fc.integer({ min: 1, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 6 })
    fc.assert(
      fc.property(fc.array(latin1, { maxLength: 40 }), fc.array(latin1, { maxLength: 20 }), (paths, probes) => {
        const set = pathSet(paths)
        const expected = new Set(paths)
        expect(set.size).toBe(expected.size)
        for (const p of [...paths, ...probes]) expect(set.has(p)).toBe(expected.has(p))
      }),
    )
  })

  it('holds a tree of many paths and names with bytes that are not UTF-8, and no string past latin1', () => {
    const paths = Array.from({ length: 50_000 }, (_, i) => `pkg${i % 7}/src/m${i}.ts`)
    paths.push('caf\xe9/\xff\n.txt', '')
    const set = pathSet(paths)
    expect(set.size).toBe(paths.length)
    expect(paths.every((p) => set.has(p))).toBe(true)
    expect(set.has('pkg0/src/m50000.ts')).toBe(false)
    expect(set.has('café/\u0100.txt')).toBe(false)
    // Entries of the same length that differ in one byte.
    expect(set.has('pkg0/src/m1.ts')).toBe(false)
    expect(set.has('pkg1/src/m1.ts')).toBe(true)
  })
})
