import { describe, expect, it } from 'vitest'
import { ReplacedNames } from '../../src/claude-code/replaced-names.js'
import { invalidUtf8, statRecords } from '../fake-bash.js'

/** The count for `input` fed in chunks of `size`. */
function counted(input: Buffer, size: number): number {
  const names = new ReplacedNames()
  for (let at = 0; at < input.length; at += size) names.push(input.subarray(at, at + size))
  return names.finish()
}

describe('ReplacedNames', () => {
  it('counts the names with bytes that are not valid UTF-8, not those holding U+FFFD, however the chunks fall', () => {
    const input = invalidUtf8(
      statRecords(['1', 'bad\xff'], ['2', 'lit\ufffd'], ['3', 'both\ufffd\xff'], ['4', 'ok'], ['5', 'cut\ufffd']) + '6\tlast\xff',
    )
    for (let size = 1; size <= input.length; size += 1) expect(counted(input, size), `chunks of ${size}`).toBe(3)
  })

  it('counts none for a valid listing, and a record split over many chunks once', () => {
    expect(counted(Buffer.from(statRecords(['1', 'a'], ['2', 'b\ufffd'])), 64)).toBe(0)
    const long = invalidUtf8(statRecords(['1', `${'x'.repeat(50)}\xff${'y'.repeat(50)}`], ['2', 'ok']))
    expect(counted(long, 7)).toBe(1)
  })
})
