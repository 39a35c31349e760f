import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { utf8CutIndex } from '../src/utf8.js'

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8')

describe('utf8CutIndex', () => {
  it.each([
    ['ASCII', 'abcdef', 3, 3],
    ['a 2-byte character straddling the cut', 'aé', 2, 1],
    ['a 3-byte character straddling the cut', 'a€b', 3, 1],
    ['a 4-byte character straddling the cut', 'a😀b', 4, 1],
    ['a 4-byte character ending at the cut', 'a😀b', 5, 5],
    ['a cut right before a multi-byte character', 'ab😀', 2, 2],
    ['a cut inside the first character', '😀', 2, 0],
  ])('keeps whole characters: %s', (_case, text, maxBytes, kept) => {
    expect(utf8CutIndex(bytes(text), maxBytes)).toBe(kept)
  })

  it.each([
    ['stray continuation bytes after a whole character', [0xc3, 0xa9, 0x80, 0x80], 2, 2],
    ['a run of continuation bytes longer than any character', [0x41, 0x80, 0x80, 0x80, 0x80, 0x80], 5, 5],
    ['a stray continuation byte after ASCII', [0x41, 0xe2, 0x41, 0x80], 3, 3],
    ['a lead byte whose sequence is cut short', [0x41, 0xe2, 0x80, 0x41], 2, 1],
    ['continuation bytes only, cut after the first', [0x80, 0x80], 1, 1],
  ])('cuts invalid UTF-8 without losing more than a broken sequence: %s', (_case, raw, maxBytes, kept) => {
    expect(utf8CutIndex(Buffer.from(raw), maxBytes)).toBe(kept)
  })

  it('keeps the longest prefix of whole characters that fits, for any text and limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1 }), fc.integer({ min: 1, max: 64 }), (raw, maxBytes) => {
        const text = raw.toWellFormed()
        const encoded = bytes(text)
        fc.pre(encoded.length > maxBytes)
        const kept = encoded.subarray(0, utf8CutIndex(encoded, maxBytes)).toString('utf8')
        expect(text.startsWith(kept)).toBe(true)
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(maxBytes)
        const next = String.fromCodePoint(text.slice(kept.length).codePointAt(0)!)
        expect(Buffer.byteLength(kept + next)).toBeGreaterThan(maxBytes)
      }),
      { numRuns: 2000 },
    )
  })

  it('never keeps more than the limit or fewer than three bytes below it, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 40 }), fc.integer({ min: 1, max: 39 }), (raw, maxBytes) => {
        fc.pre(raw.length > maxBytes)
        const kept = utf8CutIndex(raw, maxBytes)
        expect(kept).toBeLessThanOrEqual(maxBytes)
        expect(kept).toBeGreaterThanOrEqual(maxBytes - 3)
      }),
      { numRuns: 2000 },
    )
  })
})
