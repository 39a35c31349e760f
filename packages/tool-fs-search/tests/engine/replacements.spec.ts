import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { replacementOffsets } from '../../src/engine/replacements.js'

/** Where U+FFFD starts in `text` as UTF-8. */
function fffdOffsets(text: string): number[] {
  const bytes = Buffer.from(text)
  const offsets: number[] = []
  for (let at = bytes.indexOf('\ufffd'); at !== -1; at = bytes.indexOf('\ufffd', at + 3)) offsets.push(at)
  return offsets
}

/** `bytes` with each literal U+FFFD written as U+E000, which decodes the same way and takes as many bytes. */
function markLiterals(bytes: Buffer): Buffer {
  const marked = Buffer.from(bytes)
  for (let at = marked.indexOf('\ufffd'); at !== -1; at = marked.indexOf('\ufffd', at + 3)) marked.set([0xee, 0x80, 0x80], at)
  return marked
}

describe('replacementOffsets', () => {
  it.each([
    ['a lone byte that starts nothing', [0x61, 0xff, 0x62], [1]],
    ['a lone continuation byte', [0x80], [0]],
    ['C0 and C1, which only start overlong forms', [0xc0, 0xaf, 0xc1, 0xbf], [0, 3, 6, 9]],
    ['a cut three-byte character: one U+FFFD', [0xe2, 0x82, 0x61], [0]],
    ['a cut four-byte character at the end', [0x61, 0xf0, 0x9f, 0x98], [1]],
    ['a surrogate encoded: ED A0 is not a start', [0xed, 0xa0, 0x80], [0, 3, 6]],
    ['an overlong E0 80', [0xe0, 0x80, 0x80], [0, 3, 6]],
    ['past U+10FFFF: F4 90', [0xf4, 0x90, 0x80, 0x80], [0, 3, 6, 9]],
    ['an overlong F0 80', [0xf0, 0x80, 0x80, 0x80], [0, 3, 6, 9]],
    ['a literal U+FFFD beside a replaced byte', [0xef, 0xbf, 0xbd, 0xff, 0xef, 0xbf, 0xbd], [3]],
    ['valid characters of every length', [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xfe], [10]],
  ] as [string, number[], number[]][])('%s', (_, bytes, offsets) => {
    const input = Buffer.from(bytes)
    expect(replacementOffsets(input, 0, input.length)).toEqual(offsets)
    expect(fffdOffsets(markLiterals(input).toString())).toEqual(offsets)
  })

  it('reads only `[start, end)`, offsets counted from its decoded start', () => {
    const input = Buffer.from([0xff, 0x61, 0xfe, 0x62, 0xfd])
    expect(replacementOffsets(input, 1, 4)).toEqual([1])
  })

  it("finds exactly the U+FFFDs Node's decoder puts in, for any bytes", () => {
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xa0, 0x9f, 0x90, 0x8f, 0xbd),
    )
    const piece = fc.oneof(
      fc.array(byte, { minLength: 1, maxLength: 4 }),
      fc.constantFrom([0xef, 0xbf, 0xbd], [0xf0, 0x9f, 0x98, 0x80], [0xe2, 0x82, 0xac], [0xc3, 0xa9]),
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const input = Buffer.from(pieces.flat())
        expect(replacementOffsets(input, 0, input.length)).toEqual(fffdOffsets(markLiterals(input).toString()))
      }),
      { numRuns: 2000 },
    )
  })
})
