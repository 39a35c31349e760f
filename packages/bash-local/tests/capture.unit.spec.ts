import { describe, expect, it } from 'vitest'
import { completeLength, ForwardCapture, HeadCapture, leadingContinuationBytes, TailCapture } from '../src/capture.js'

const bytes = (...values: number[]): Buffer => Buffer.from(values)

describe('HeadCapture', () => {
  it('keeps exactly the first maxBytes across chunks and counts every byte', () => {
    const head = new HeadCapture(5)
    expect(head.push(Buffer.from('abc'))).toBe(false)
    expect(head.push(Buffer.from('def'))).toBe(true)
    expect(head.push(Buffer.from('ghi'))).toBe(true)
    expect(head.result()).toEqual({ text: 'abcde', truncated: true, totalBytes: 9 })
  })

  it('reports a stream of exactly maxBytes as not truncated', () => {
    const head = new HeadCapture(3)
    expect(head.push(Buffer.from('abc'))).toBe(false)
    expect(head.result()).toEqual({ text: 'abc', truncated: false, totalBytes: 3 })
  })

  it('cuts before a character the cap would split', () => {
    const head = new HeadCapture(3)
    head.push(Buffer.from('aé€'))
    expect(head.result()).toEqual({ text: 'aé', truncated: true, totalBytes: 6 })
  })

  it('decodes invalid UTF-8 at the end of an untruncated stream to U+FFFD', () => {
    const head = new HeadCapture(10)
    head.push(bytes(0x61, 0xe2, 0x82))
    expect(head.result()).toEqual({ text: 'a\ufffd', truncated: false, totalBytes: 3 })
  })
})

describe('ForwardCapture', () => {
  it('forwards exactly the first maxBytes across chunks, keeps nothing, and counts every byte', () => {
    const seen: string[] = []
    const forward = new ForwardCapture(5, (chunk) => seen.push(Buffer.from(chunk).toString()))
    expect(forward.push(Buffer.from('abc'))).toBe(false)
    expect(forward.push(Buffer.from('def'))).toBe(true)
    expect(forward.push(Buffer.from('ghi'))).toBe(true)
    expect(seen).toEqual(['abc', 'de'])
    expect(forward.result()).toEqual({ text: '', truncated: true, totalBytes: 9 })
  })

  it('reports a stream of exactly maxBytes as not truncated', () => {
    const forward = new ForwardCapture(3, () => undefined)
    expect(forward.push(Buffer.from('abc'))).toBe(false)
    expect(forward.result()).toEqual({ text: '', truncated: false, totalBytes: 3 })
  })
})

describe('TailCapture', () => {
  it('keeps exactly the last maxBytes as the ring wraps', () => {
    const tail = new TailCapture(4)
    for (const part of ['ab', 'cd', 'ef', 'g']) tail.push(Buffer.from(part))
    expect(tail.result()).toEqual({ text: 'defg', truncated: true, totalBytes: 7 })
  })

  it('keeps the end of a single chunk larger than the ring', () => {
    const tail = new TailCapture(3)
    tail.push(Buffer.from('x'))
    tail.push(Buffer.from('0123456789'))
    expect(tail.result()).toEqual({ text: '789', truncated: true, totalBytes: 11 })
  })

  it('returns an empty text for a stream that produced nothing', () => {
    expect(new TailCapture(8).result()).toEqual({ text: '', truncated: false, totalBytes: 0 })
  })

  it('starts after a character the cap would split', () => {
    const tail = new TailCapture(3)
    tail.push(Buffer.from('x€a'))
    expect(tail.result()).toEqual({ text: 'a', truncated: true, totalBytes: 5 })
  })

  it('keeps invalid bytes at the start of an untruncated stream as U+FFFD', () => {
    const tail = new TailCapture(4)
    tail.push(bytes(0x82, 0x61))
    expect(tail.result()).toEqual({ text: '\ufffda', truncated: false, totalBytes: 2 })
  })
})

describe('UTF-8 boundaries', () => {
  it.each([
    ['complete ASCII', bytes(0x61, 0x62), 2],
    ['a 2-byte lead alone', bytes(0x61, 0xc3), 1],
    ['a 3-byte character missing one byte', bytes(0x61, 0xe2, 0x82), 1],
    ['a 4-byte character missing one byte', bytes(0x61, 0xf0, 0x9f, 0x98), 1],
    ['a complete 4-byte character', bytes(0xf0, 0x9f, 0x98, 0x80), 4],
    ['only continuation bytes', bytes(0x80, 0x80), 2],
    ['nothing', bytes(), 0],
    ['four continuation bytes after a lead', bytes(0xc3, 0x80, 0x80, 0x80, 0x80), 5],
  ])('completeLength of %s', (_label, input, expected) => {
    expect(completeLength(input)).toBe(expected)
  })

  it('skips at most three leading continuation bytes', () => {
    expect(leadingContinuationBytes(bytes(0x80, 0x80, 0x80, 0x80, 0x61))).toBe(3)
    expect(leadingContinuationBytes(bytes(0x80))).toBe(1)
    expect(leadingContinuationBytes(bytes(0x61, 0x80))).toBe(0)
  })
})
