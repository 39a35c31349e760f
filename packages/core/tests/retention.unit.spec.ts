import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ItemRetainer, TextRetainer } from '@dsh/core'

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')
const isValidUtf8 = (text: string): boolean => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'utf8')) === text

describe('ItemRetainer', () => {
  it('keeps the head items and counts every item offered', () => {
    const retainer = new ItemRetainer<number>({ maxItems: 2 })
    expect([1, 2, 3, 4].map((n) => retainer.push(n))).toEqual([true, true, false, false])
    expect(retainer.result()).toEqual({ items: [1, 2], kept: 2, total: 4, truncated: true })
  })

  it('is not truncated when everything fits', () => {
    const retainer = new ItemRetainer<string>({ maxItems: 5 })
    retainer.push('a')
    expect(retainer.result()).toEqual({ items: ['a'], kept: 1, total: 1, truncated: false })
  })

  it.each([-1, 1.5, Number.NaN])('rejects maxItems %s', (maxItems) => {
    expect(() => new ItemRetainer({ maxItems })).toThrow(RangeError)
  })
})

describe('TextRetainer', () => {
  it('keeps a text that fits untouched', () => {
    expect(new TextRetainer({ maxBytes: 5 }).retain('héllo'.slice(0, 4))).toEqual({
      text: 'héll',
      keptBytes: 5,
      totalBytes: 5,
      truncated: false,
    })
  })

  it('cuts the head before a code point that would not fit', () => {
    // "aé€😀": 1 + 2 + 3 + 4 bytes.
    const head = new TextRetainer({ maxBytes: 8 }).retain('aé€😀')
    expect(head).toEqual({ text: 'aé€', keptBytes: 6, totalBytes: 10, truncated: true })
  })

  it('counts a lone surrogate as the replacement character it encodes to', () => {
    expect(new TextRetainer({ maxBytes: 10 }).retain('a\ud800')).toMatchObject({ text: 'a\ufffd', totalBytes: 4 })
  })

  it('rejects a negative maxBytes', () => {
    expect(() => new TextRetainer({ maxBytes: -1 })).toThrow('maxBytes must be a non-negative integer, got -1')
    expect(new TextRetainer({ maxBytes: 0 }).retain('abc').text).toBe('')
  })

  it('never exceeds maxBytes, keeps a prefix, and stays valid UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat({ max: 64 }), (raw, maxBytes) => {
        const input = raw.toWellFormed()
        const out = new TextRetainer({ maxBytes }).retain(raw)
        expect(utf8(out.text)).toBeLessThanOrEqual(maxBytes)
        expect(out.keptBytes).toBe(utf8(out.text))
        expect(out.totalBytes).toBe(utf8(input))
        expect(out.truncated).toBe(out.totalBytes > maxBytes)
        expect(input.startsWith(out.text)).toBe(true)
        expect(isValidUtf8(out.text)).toBe(true)
        // Maximal: one more code point would not have fit.
        if (out.truncated) {
          const next = String.fromCodePoint(input.slice(out.text.length).codePointAt(0)!)
          expect(out.keptBytes + utf8(next)).toBeGreaterThan(maxBytes)
        }
      }),
      { numRuns: 2000 },
    )
  })
})
