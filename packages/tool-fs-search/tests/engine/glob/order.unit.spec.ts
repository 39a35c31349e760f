// The files' time order: the radix sort gives what a stable comparator sort of (seconds, nanoseconds) gives.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { newestFirst } from '../../../src/engine/glob/order.js'

/** Files' times, the radix sort's order of them and a stable comparator's. */
function sorted(times: readonly (readonly [number, number])[]) {
  const seconds = Float64Array.from(times, ([s]) => s)
  const nanos = Int32Array.from(times, ([, n]) => n)
  const want = times.map((_, i) => i).sort((a, b) => seconds[b]! - seconds[a]! || nanos[b]! - nanos[a]!)
  return { got: Array.from(newestFirst(times.length, seconds, nanos)), want }
}

// Times repeat (a tree shares many), and equal ones keep the order the files came in.
const someShared = (time: fc.Arbitrary<readonly [number, number]>) =>
  fc
    .array(time, { maxLength: 300 })
    .chain((times) =>
      fc
        .array(fc.nat(), { maxLength: 30 })
        .map((picks) => (times.length === 0 ? times : [...times, ...picks.map((p) => times[p % times.length]!)])),
    )

describe('the files newest first', () => {
  it('orders times near each other, far apart, before 1970 and past 2^32 s as the comparator does', () => {
    const nanos = fc.oneof(fc.integer({ min: -999_999_999, max: 999_999_999 }), fc.integer({ min: 0, max: 3 }))
    const seconds = fc.oneof(
      fc.integer({ min: 1_700_000_000, max: 1_700_000_050 }),
      fc.integer({ min: -3_000_000_000, max: 3_000_000_000 }),
      fc.integer({ min: 0, max: 2 ** 40 }),
      fc.double({ min: -1e12, max: 1e12, noNaN: true }),
    )
    fc.assert(
      fc.property(someShared(fc.tuple(seconds, nanos)), (times) => {
        const { got, want } = sorted(times)
        expect(got).toEqual(want)
      }),
      { numRuns: 500 },
    )
  })

  it('sorts 100,000 files of one second and of many', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => [1_700_000_000 + ((i * 7_919) % 100_000), 0] as const)
    const oneSecond = Array.from({ length: 100_000 }, (_, i) => [1_700_000_000, (i * 7_919) % 100_000] as const)
    for (const times of [many, oneSecond]) {
      const { got, want } = sorted(times)
      expect(got).toEqual(want)
    }
  })
})
