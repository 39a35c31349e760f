import { isUtf8 } from 'node:buffer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { FileLine, ReadLinesResult } from '@dsh/core'
import { LineWindow, type WindowLimits } from '../src/line-window.js'
import { utf8CutIndex } from '../src/utf8.js'

const LIMITS: WindowLimits = { offset: 1, limit: 100, maxLineBytes: 100, maxBytes: 10_000 }

/**
 * Feeds `bytes` in pieces cut at `cuts`, through one reused buffer the way the reader does, scribbling
 * over it after each push so a window that kept a reference into it would show garbage.
 */
function runWindow(bytes: Buffer, limits: Partial<WindowLimits> = {}, cuts: readonly number[] = []): ReadLinesResult {
  const window = new LineWindow({ ...LIMITS, ...limits })
  const shared = Buffer.alloc(Math.max(1, bytes.length))
  const bounds = [...new Set([0, ...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length])].sort((a, b) => a - b)
  for (let i = 0; i + 1 < bounds.length; i += 1) {
    const length = bytes.copy(shared, 0, bounds[i], bounds[i + 1])
    const settled = window.push(shared.subarray(0, length))
    shared.fill(0x58)
    if (settled) return window.result()
  }
  return window.end()
}

/** The contract, written the obvious way over the whole file in memory. */
function referenceWindow(bytes: Buffer, limits: WindowLimits): ReadLinesResult {
  const contents: Buffer[] = []
  let start = 0
  for (let i = 0; i < bytes.length; i += 1) {
    if (bytes[i] !== 0x0a) continue
    const line = bytes.subarray(start, i)
    contents.push(line.at(-1) === 0x0d ? line.subarray(0, -1) : line)
    start = i + 1
  }
  if (start < bytes.length) contents.push(bytes.subarray(start))
  const lines: FileLine[] = []
  let keptBytes = 0
  let lossy = false
  for (let number = limits.offset; number <= contents.length; number += 1) {
    if (lines.length === limits.limit) return { lines, stoppedBy: 'limit', lossy }
    const content = contents[number - 1]!
    const cut = content.length > limits.maxLineBytes
    const kept = cut ? content.subarray(0, utf8CutIndex(content, limits.maxLineBytes)) : content
    if (lines.length > 0 && keptBytes + kept.length > limits.maxBytes) return { lines, stoppedBy: 'bytes', lossy }
    lines.push({ number, text: kept.toString('utf8'), cut })
    keptBytes += kept.length
    lossy ||= !isUtf8(kept)
    if (cut && lines.length === limits.limit) return { lines, stoppedBy: 'limit', lossy }
  }
  return { lines, stoppedBy: 'end', totalLines: contents.length, lossy }
}

const line = (number: number, text: string, cut = false): FileLine => ({ number, text, cut })

describe('LineWindow', () => {
  it.each([
    ['an empty file has no lines', '', [], 0],
    ['"a\\n" has one line', 'a\n', [line(1, 'a')], 1],
    ['a last line without a newline counts', 'a\nb', [line(1, 'a'), line(2, 'b')], 2],
    ['CR LF ends a line and the CR is dropped', 'a\r\nb\r\n', [line(1, 'a'), line(2, 'b')], 2],
    ['a CR elsewhere is text', 'a\rb\r\n\r', [line(1, 'a\rb'), line(2, '\r')], 2],
    ['empty lines are lines', '\n\n', [line(1, ''), line(2, '')], 2],
  ])('%s', (_case, text, lines, totalLines) => {
    expect(runWindow(Buffer.from(text))).toEqual({ lines, stoppedBy: 'end', totalLines, lossy: false })
  })

  it('skips lines before the offset and stops at the limit when more follow', () => {
    expect(runWindow(Buffer.from('1\n2\n3\n4\n'), { offset: 2, limit: 2 })).toEqual({
      lines: [line(2, '2'), line(3, '3')],
      stoppedBy: 'limit',
      lossy: false,
    })
  })

  it.each([
    ['a final newline', '1\n2\n'],
    ['no final newline', '1\n2'],
  ])('reports the end when the limit is reached exactly at the end, with %s', (_case, text) => {
    expect(runWindow(Buffer.from(text), { limit: 2 })).toEqual({
      lines: [line(1, '1'), line(2, '2')],
      stoppedBy: 'end',
      totalLines: 2,
      lossy: false,
    })
  })

  it('peeks into the next chunk to tell the end from more lines', () => {
    expect(runWindow(Buffer.from('1\n2\n'), { limit: 1 }, [2])).toMatchObject({ stoppedBy: 'limit' })
    expect(runWindow(Buffer.from('1\n'), { limit: 1 }, [2])).toMatchObject({ stoppedBy: 'end', totalLines: 1 })
  })

  it('reports no lines and the line count for an offset past the end', () => {
    expect(runWindow(Buffer.from('a\nb\n'), { offset: 5 })).toEqual({ lines: [], stoppedBy: 'end', totalLines: 2, lossy: false })
  })

  it('ends the window before the line that would pass maxBytes, but always holds one line', () => {
    expect(runWindow(Buffer.from('aaaa\nbbbb\ncc\n'), { maxBytes: 7 })).toEqual({
      lines: [line(1, 'aaaa')],
      stoppedBy: 'bytes',
      lossy: false,
    })
    expect(runWindow(Buffer.from('aaaa\nbbbb\ncc\n'), { maxBytes: 8 })).toMatchObject({
      lines: [line(1, 'aaaa'), line(2, 'bbbb')],
      stoppedBy: 'bytes',
    })
    expect(runWindow(Buffer.from('aaaaaaaa\nb\n'), { maxBytes: 2 })).toMatchObject({ lines: [line(1, 'aaaaaaaa')], stoppedBy: 'bytes' })
    expect(runWindow(Buffer.from('aaaa\nbbbb'), { maxBytes: 6 })).toMatchObject({ lines: [line(1, 'aaaa')], stoppedBy: 'bytes' })
  })

  it('cuts a long line on a character boundary, marks it, and goes on with the next line', () => {
    const text = `${'é'.repeat(6)}\nnext\n`
    for (const cuts of [[], [3], [5, 6, 7], [14]]) {
      expect(runWindow(Buffer.from(text), { maxLineBytes: 5 }, cuts), `cuts ${cuts.join(',')}`).toEqual({
        lines: [line(1, 'éé', true), line(2, 'next')],
        stoppedBy: 'end',
        totalLines: 2,
        lossy: false,
      })
    }
  })

  it('keeps a line of exactly maxLineBytes followed by CR LF whole, however the chunks fall', () => {
    for (const cuts of [[], [4], [5], [6]]) {
      expect(runWindow(Buffer.from('abcd\r\nx'), { maxLineBytes: 4 }, cuts).lines[0], `cuts ${cuts.join(',')}`).toEqual(line(1, 'abcd'))
    }
  })

  it('stops at a cut line that fills the window without looking for its end', () => {
    expect(runWindow(Buffer.from('x'.repeat(50)), { maxLineBytes: 4, limit: 1 }, [10])).toEqual({
      lines: [line(1, 'xxxx', true)],
      stoppedBy: 'limit',
      lossy: false,
    })
    expect(runWindow(Buffer.from('xxxxx'), { maxLineBytes: 4, limit: 1 })).toMatchObject({ stoppedBy: 'limit' })
  })

  it('decodes invalid UTF-8 as U+FFFD and reports the window lossy only when a kept line has it', () => {
    const bytes = Buffer.concat([Buffer.from('ok\nbad '), Buffer.from([0xff, 0xc3]), Buffer.from('\nok\n')])
    expect(runWindow(bytes)).toMatchObject({ lines: [line(1, 'ok'), line(2, 'bad \ufffd\ufffd'), line(3, 'ok')], lossy: true })
    expect(runWindow(bytes, { offset: 3 })).toMatchObject({ lines: [line(3, 'ok')], lossy: false })
  })

  it('keeps a multi-byte character that straddles a chunk boundary whole', () => {
    expect(runWindow(Buffer.from('a😀b\n'), {}, [2, 3, 4])).toMatchObject({ lines: [line(1, 'a😀b')], lossy: false })
  })

  it('settles however its input is chunked, exactly as the contract says', () => {
    const token = fc.constantFrom<readonly number[]>(
      ...['a', 'bc', '\n', '\r', '\r\n', 'é', '€', '😀', 'long line text '].map((t) => [...Buffer.from(t)]),
      [0xff],
      [0xc3],
      [0x80],
    )
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 40 }).map((tokens) => Buffer.from(tokens.flat())),
        fc.record({
          offset: fc.integer({ min: 1, max: 8 }),
          limit: fc.integer({ min: 1, max: 6 }),
          maxLineBytes: fc.integer({ min: 1, max: 12 }),
          maxBytes: fc.integer({ min: 1, max: 30 }),
        }),
        fc.array(fc.nat({ max: 200 }), { maxLength: 8 }),
        (bytes, limits, cuts) => {
          expect(runWindow(bytes, limits, cuts)).toEqual(referenceWindow(bytes, limits))
        },
      ),
      { numRuns: 3000 },
    )
  })
})
