import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ItemRetainer, TextRetainer } from '@dsh/core'

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')
const isValidUtf8 = (text: string): boolean => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'utf8')) === text

describe('ItemRetainer', () => {
  it('keeps the head items and counts every item offered', () => {
    const retainer = new ItemRetainer<number>({ kind: 'head', maxItems: 2 })
    expect([1, 2, 3, 4].map((n) => retainer.push(n))).toEqual([true, true, false, false])
    expect(retainer.result()).toEqual({ items: [1, 2], kept: 2, total: 4, truncated: true })
  })

  it('is not truncated when everything fits', () => {
    const retainer = new ItemRetainer<string>({ kind: 'head', maxItems: 5 })
    retainer.push('a')
    expect(retainer.result()).toEqual({ items: ['a'], kept: 1, total: 1, truncated: false })
  })

  it.each([-1, 1.5, Number.NaN])('rejects maxItems %s', (maxItems) => {
    expect(() => new ItemRetainer({ kind: 'head', maxItems })).toThrow(RangeError)
  })
})

describe('TextRetainer', () => {
  it('keeps a text that fits untouched', () => {
    expect(new TextRetainer({ kind: 'head', maxBytes: 5 }).retain('héllo'.slice(0, 4))).toEqual({
      text: 'héll',
      keptBytes: 5,
      totalBytes: 5,
      truncated: false,
    })
  })

  it('cuts the head before a code point that would not fit', () => {
    // "aé€😀": 1 + 2 + 3 + 4 bytes.
    const head = new TextRetainer({ kind: 'head', maxBytes: 8 }).retain('aé€😀')
    expect(head).toEqual({ text: 'aé€', keptBytes: 6, totalBytes: 10, truncated: true })
  })

  it('cuts the tail after a code point that would not fit', () => {
    expect(new TextRetainer({ kind: 'tail', maxBytes: 8 }).retain('😀€éa')).toEqual({
      text: '€éa',
      keptBytes: 6,
      totalBytes: 10,
      truncated: true,
    })
    expect(new TextRetainer({ kind: 'tail', maxBytes: 4 }).retain('x😀😀').text).toBe('😀')
    expect(new TextRetainer({ kind: 'tail', maxBytes: 0 }).retain('abc').text).toBe('')
  })

  it('counts a lone surrogate as the replacement character it encodes to', () => {
    expect(new TextRetainer({ kind: 'head', maxBytes: 10 }).retain('a\ud800')).toMatchObject({ text: 'a\ufffd', totalBytes: 4 })
  })

  it('rejects a negative maxBytes', () => {
    expect(() => new TextRetainer({ kind: 'tail', maxBytes: -1 })).toThrow('maxBytes must be a non-negative integer, got -1')
  })

  it('never exceeds maxBytes, keeps a prefix (head) or suffix (tail), and stays valid UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat({ max: 64 }), fc.constantFrom('head', 'tail'), (raw, maxBytes, kind: 'head' | 'tail') => {
        const input = raw.toWellFormed()
        const out = new TextRetainer({ kind, maxBytes }).retain(raw)
        expect(utf8(out.text)).toBeLessThanOrEqual(maxBytes)
        expect(out.keptBytes).toBe(utf8(out.text))
        expect(out.totalBytes).toBe(utf8(input))
        expect(out.truncated).toBe(out.totalBytes > maxBytes)
        expect(kind === 'head' ? input.startsWith(out.text) : input.endsWith(out.text)).toBe(true)
        expect(isValidUtf8(out.text)).toBe(true)
        // Maximal: one more code point would not have fit.
        if (out.truncated) {
          const rest = kind === 'head' ? input.slice(out.text.length) : input.slice(0, input.length - out.text.length)
          const next = kind === 'head' ? String.fromCodePoint(rest.codePointAt(0)!) : [...rest].at(-1)!
          expect(out.keptBytes + utf8(next)).toBeGreaterThan(maxBytes)
        }
      }),
      { numRuns: 2000 },
    )
  })
})
