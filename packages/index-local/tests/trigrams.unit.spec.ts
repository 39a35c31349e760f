// A file's trigrams as the build collects them: each distinct key once, with the columns it starts at modulo 16.
import { describe, expect, it } from 'vitest'
import { foldByte, TrigramCollector, trigramKey } from '../src/trigrams.js'

const key = (text: string) => trigramKey(text.charCodeAt(0), text.charCodeAt(1), text.charCodeAt(2))

function collect(collector: TrigramCollector, text: string): Map<number, number> {
  return collected(collector, Buffer.from(text, 'latin1'))
}

function collected(collector: TrigramCollector, bytes: Uint8Array): Map<number, number> {
  const added = collector.collect(bytes)
  const out = new Map<number, number>()
  for (let k = 0; k < added; k++) {
    expect(out.has(collector.keys[k]!)).toBe(false)
    out.set(collector.keys[k]!, collector.positions[k]!)
  }
  return out
}

describe('TrigramCollector', () => {
  it('gives each distinct key once, folded, with a bit for each start modulo 16', () => {
    const collector = new TrigramCollector()
    const keys = collect(collector, 'aaaa-ABC' + '.'.repeat(13) + 'abc')
    // aaa at 0 and 1; abc (folded from ABC) at 5 and 21, which is 5 again modulo 16.
    expect(keys.get(key('aaa'))).toBe(0b11)
    expect(keys.get(key('abc'))).toBe(1 << 5)
    expect(collect(collector, 'ab')).toEqual(new Map())
  })

  it('counts a start from the start of its line, the line end being the last byte of its line', () => {
    const collector = new TrigramCollector()
    const keys = collect(collector, 'xabc\n\nabc\r\nzzabc' + '.'.repeat(20) + 'abc\nq')
    // abc at columns 1, 0 (after an empty line), 2 and 25 (9 modulo 16); `c\nq` starts at column 27.
    expect(keys.get(key('abc'))).toBe((1 << 1) | (1 << 0) | (1 << 2) | (1 << 9))
    expect(keys.get(key('c\n\n'))).toBe(1 << 3)
    expect(keys.get(key('\n\na'))).toBe(1 << 4)
    expect(keys.get(key('\nab'))).toBe(1 << 0)
    expect(keys.get(key('c\r\n'))).toBe(1 << 2)
    expect(keys.get(key('c\nq'))).toBe(1 << 11)
  })

  it('starts each file afresh, and takes files longer than its first buffer of keys', () => {
    const collector = new TrigramCollector()
    collect(collector, 'xyz xyz')
    // 100,000 random bytes: nearly as many distinct trigrams, more than the 4,096 its first buffer holds.
    let seed = 7
    const bytes = Uint8Array.from({ length: 100_000 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24)
    const out = collected(collector, bytes)
    expect(out.size).toBeGreaterThan(1 << 16)
    // The same keys and masks as one map of them all, across the blocks of 65,536 bytes it keys between checks for room.
    const expected = new Map<number, number>()
    let lineStart = 0
    for (let i = 0; i + 2 < bytes.length; i++) {
      const k = trigramKey(foldByte(bytes[i]!), foldByte(bytes[i + 1]!), foldByte(bytes[i + 2]!))
      expected.set(k, (expected.get(k) ?? 0) | (1 << ((i - lineStart) % 16)))
      if (bytes[i] === 0x0a) lineStart = i + 1
    }
    expect(out).toEqual(expected)
    const again = collect(collector, 'xyz')
    expect(again.get(key('xyz'))).toBe(1)
  })

  it('knows each file apart after more files than its generations, when they start again', () => {
    const collector = new TrigramCollector()
    expect(collect(collector, 'abc')).toEqual(new Map([[key('abc'), 1]]))
    // The first file was generation 1; these are 2 to 0xffff, the last there is.
    for (let file = 1; file < 0xffff; file++) expect(collector.collect(Buffer.from('xyz'))).toBe(1)
    // Generation 1 again: were the first file's slot still there, its key would go missing here.
    expect(collect(collector, '-abc')).toEqual(
      new Map([
        [key('-ab'), 1],
        [key('abc'), 2],
      ]),
    )
    expect(collect(collector, 'xyz')).toEqual(new Map([[key('xyz'), 1]]))
  })
})
