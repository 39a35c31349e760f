import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OutputBytes } from '../../src/common/output-bytes.js'

const bytes = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((part) => Buffer.from(part)))

/** Appends `input` in chunks of `size`, then finishes: what the buffer holds. */
function fed(input: Buffer, size: number): OutputBytes {
  const output = new OutputBytes(0x0a, 100_000)
  for (let at = 0; at < input.length; at += size) output.append(input.subarray(at, at + size))
  output.finish()
  return output
}

describe('OutputBytes', () => {
  it('holds exactly the text a whole-output decode gives, however the chunks fall', () => {
    const pieces = [
      bytes('a'),
      bytes('\n'),
      bytes('é'),
      bytes([0xff]),
      bytes([0xc3]),
      bytes([0xe2, 0x82]),
      bytes([0xf0, 0x9f, 0x98, 0x80]),
      bytes('\0'),
    ]
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), fc.integer({ min: 1, max: 9 }), (parts, size) => {
        const input = Buffer.concat(parts)
        const output = fed(input, size)
        expect(output.text(0, output.length)).toBe(input.toString())
        expect(output.bytes.subarray(0, output.length).equals(Buffer.from(input.toString()))).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  it('checks lines as they complete, and a last line without its newline only at the end', () => {
    const output = new OutputBytes(0x0a, 100_000)
    output.append(bytes('ab\ncd'))
    expect(output.checked).toBe(3)
    output.append(bytes(''))
    output.append(bytes('e', [0xff]))
    expect(output.checked).toBe(3)
    output.finish()
    expect([output.checked, output.text(0, output.length)]).toEqual([9, 'ab\ncde\ufffd'])
  })

  it('grows as the output needs, replacements that take more room than the bytes they replace included', () => {
    const input = Buffer.concat([Buffer.alloc(40_000, 0xff), bytes('\n'), Buffer.alloc(100_000, 0x61)])
    const output = fed(input, 70_000)
    output.finish()
    expect(output.length).toBe(120_001 + 100_000)
    expect(output.text(0, 6)).toBe('\ufffd\ufffd')
  })

  it('drops what the parser has read, keeping the rest and where the check stands', () => {
    const output = new OutputBytes(0x0a, 100_000)
    output.append(bytes('D\0'))
    output.keep(0, 2)
    expect([output.length, output.checked]).toEqual([0, 0])
    output.append(bytes('one\ntwo\nthr'))
    output.keep(2, 4)
    expect([output.text(0, output.length), output.checked]).toEqual(['ontwo\nthr', 6])
    output.keep(6, 6)
    expect(output.length).toBe(9)
  })
})
