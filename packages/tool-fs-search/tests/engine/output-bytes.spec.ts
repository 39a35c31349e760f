import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OutputBytes } from '../../src/engine/output-bytes.js'

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

  it('knows where it put U+FFFD in for bytes, and not where the output held one, however the chunks fall', () => {
    // A literal U+FFFD, then a replaced byte, in one line; a U+FFFD and a cut character split across lines.
    const input = bytes('a\ufffd', [0xff], 'b\n\ufffd\n', [0xe2, 0x82], '\n')
    for (let size = 1; size <= input.length; size += 1) {
      const output = new OutputBytes(0x0a, 100_000, { tracksReplacements: true })
      for (let at = 0; at < input.length; at += size) output.append(input.subarray(at, at + size))
      output.finish()
      expect(output.text(0, output.length)).toBe('a\ufffd\ufffdb\n\ufffd\n\ufffd\n')
      const replaced = Array.from({ length: output.length }, (_, at) => output.replacedIn(at, at + 1))
      expect(
        replaced.flatMap((yes, at) => (yes ? [at] : [])),
        `chunks of ${size}`,
      ).toEqual([4, 13])
      expect([output.replacedIn(0, 4), output.replacedIn(0, 5), output.replacedIn(5, 13), output.replacedIn(13, 17)]).toEqual([
        false,
        true,
        false,
        true,
      ])
    }
  })

  it('forgets the replacements a parser has read, and finds the rest where keep moved them', () => {
    const output = new OutputBytes(0x0a, 100_000, { tracksReplacements: true })
    output.append(bytes([0xff], 'a\nbb', [0xfe], '\nc\n'))
    // Replacements start at 0 and 7: `\ufffd a \n b b \ufffd \n c \n`.
    expect([output.replacedIn(0, 1), output.replacedIn(7, 8)]).toEqual([true, true])
    // The parser read the first line and kept one byte of it.
    output.keep(1, 5)
    expect(output.text(1, output.length)).toBe('bb\ufffd\nc\n')
    expect([output.replacedIn(0, 3), output.replacedIn(3, 4), output.replacedIn(4, 8)]).toEqual([false, true, false])
    output.keep(1, 6)
    expect([output.text(1, output.length), output.replacedIn(0, output.length)]).toEqual(['\nc\n', false])
    // Later replacements are found again after the list emptied.
    output.append(bytes('d', [0xff], '\n'))
    expect([output.text(1, output.length), output.replacedIn(1, 5), output.replacedIn(5, 6)]).toEqual(['\nc\nd\ufffd\n', false, true])
  })

  it('hands over the replacements not yet taken, where keep moved them, and forgets them', () => {
    const output = new OutputBytes(0x0a, 100_000, { tracksReplacements: true })
    output.append(bytes('\ufffd', [0xff], 'a\n'))
    expect(output.takeReplacements()).toEqual([3])
    expect([output.takeReplacements(), output.replacedIn(0, output.length)]).toEqual([[], false])
    output.append(bytes('b', [0xfe], '\n\ufffd\nc', [0xc3]))
    output.keep(0, 8)
    output.finish()
    // `b \ufffd \n \ufffd \n c \ufffd`, moved down by the 8 bytes dropped: the literal one is not taken.
    expect([output.text(0, output.length), output.takeReplacements()]).toEqual(['b\ufffd\n\ufffd\nc\ufffd', [1, 10]])
  })

  it('remembers no replacement unless asked to', () => {
    const output = fed(bytes([0xff], '\n'), 1)
    expect([output.text(0, output.length), output.replacedIn(0, output.length), output.takeReplacements()]).toEqual(['\ufffd\n', false, []])
  })
})
