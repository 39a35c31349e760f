import { afterEach, describe, expect, it, vi } from 'vitest'
import { JsonLineSplitter } from '../src/json-lines.js'
import type { MessageShape } from '../src/message-shape.js'
import { countBufferWork } from './fixtures.js'

type Event = { line: string } | { oversized: number; shape: MessageShape }

/** A splitter over `maxBytes` and what it handed on. */
function splitter(maxBytes: number) {
  const events: Event[] = []
  const split = new JsonLineSplitter(maxBytes, {
    line: (line) => events.push({ line }),
    oversized: (bytes, shape) => events.push({ oversized: bytes, shape }),
  })
  return { split, events }
}

/** Feeds `bytes` in chunks of `size`, each a view of the same memory, as a stream's chunks are. */
function feed(split: JsonLineSplitter, bytes: Buffer, size: number): void {
  for (let start = 0; start < bytes.length; start += size) split.push(bytes.subarray(start, start + size))
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('JsonLineSplitter', () => {
  it('cuts lines wherever the chunks end, dropping a CR before the line feed and keeping multibyte text whole', () => {
    const input = Buffer.from('{"a":"é€😀"}\r\n\n{"b":2}\n{"c"')
    for (let size = 1; size <= input.length; size++) {
      const { split, events } = splitter(1024)
      feed(split, input, size)
      expect(events, `chunks of ${size}`).toEqual([{ line: '{"a":"é€😀"}' }, { line: '' }, { line: '{"b":2}' }])
    }
  })

  it('takes a line of exactly the limit and refuses one byte more, with its size and shape, then reads on', () => {
    const at = `{"id":1,"method":"${'x'.repeat(30)}"}`
    const over = `{"method":"${'x'.repeat(31)}","id":2}`
    expect(Buffer.byteLength(at)).toBe(50)
    expect(Buffer.byteLength(over)).toBe(51)
    for (const size of [1, 7, 50, 200]) {
      const { split, events } = splitter(50)
      feed(split, Buffer.from(`${at}\n${over}\n{}\n`), size)
      expect(events, `chunks of ${size}`).toEqual([
        { line: at },
        { oversized: 51, shape: { id: 2, method: true, answer: false } },
        { line: '{}' },
      ])
    }
  })

  it('drops a partial line on clear, so the next line starts clean', () => {
    const { split, events } = splitter(1024)
    split.push(Buffer.from('{"half'))
    split.clear()
    split.push(Buffer.from('{"whole":1}\n'))
    expect(events).toEqual([{ line: '{"whole":1}' }])
  })

  it('searches each byte of a large line once and copies it once, however small its chunks', () => {
    const size = 3 * 1024 * 1024
    const message = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"${'p'.repeat(size)}"}}\n`)
    const work = countBufferWork(message)
    const { split, events } = splitter(4 * 1024 * 1024)
    feed(split, message, 1024)
    const line = events[0] as { line: string }
    expect(events).toHaveLength(1)
    expect(line.line.length).toBe(message.length - 1)
    expect(work).toEqual({ searched: message.length, copied: message.length - 1 })
  })

  it('searches an oversized line once and joins none of it, reading its id from the end as it passes', () => {
    const message = Buffer.from(`{"method":"tools/call","params":{"pad":"${'p'.repeat(1024 * 1024)}"},"id":"big"}\n{"id":2}\n`)
    const lineBytes = message.indexOf('\n')
    const work = countBufferWork(message)
    const { split, events } = splitter(64 * 1024)
    feed(split, message, 1000)
    expect(events).toEqual([{ oversized: lineBytes, shape: { id: 'big', method: true, answer: false } }, { line: '{"id":2}' }])
    expect(work).toEqual({ searched: message.length, copied: 0 })
  })
})
