// rg's file names stamped with the times the index gives, as the mtime helper would print them (docs/design.md#glob-reads-times-from-the-index).
import type { FileTime, IndexTimesAnswer } from '@dsh/core'

/** Gives a listed file's time: see `IndexTimesAnswer`. */
export type TimeOf = Extract<IndexTimesAnswer, { kind: 'times' }>['timeOf']

const NUL = 0x00
const TAB = 0x09
const MINUS = 0x2d
const DOT = 0x2e
const ZERO = 0x30
// The most a stamp takes: a sign, 20 digits of seconds (a 64-bit time), a dot, 9 digits, a tab.
const STAMP_MAX_BYTES = 32
const NANO_DIGITS = 9

/**
 * Turns rg's NUL-separated names into the records glob's mtime helper prints, `SECONDS.NANOS TAB name
 * NUL` as GNU find's `%T@` gives them (the whole seconds rounded down, negative before 1970, then the
 * nanoseconds after them), and hands them on: the listing then parses, sorts and spills exactly as one
 * from find does. A file whose time cannot be read (gone since rg listed it) is left out and named, as
 * find leaves out and names one.
 */
export class TimeStamper {
  /** Files whose times the index recorded, and those read now. */
  recorded = 0
  read = 0
  /** One line per file whose time could not be read: its name, and why. */
  readonly unstatted: string[] = []
  readonly #timeOf: TimeOf
  readonly #sink: (chunk: Uint8Array) => void
  readonly #time: FileTime = { seconds: 0, nanos: 0 }
  #out = Buffer.allocUnsafe(1 << 16)
  /** The start of a name whose NUL has not come yet. */
  #carry: Buffer | undefined

  constructor(timeOf: TimeOf, sink: (chunk: Uint8Array) => void) {
    this.#timeOf = timeOf
    this.#sink = sink
  }

  /** Takes the next chunk of rg's output and hands on the records of every name it completes. */
  push(chunk: Uint8Array): void {
    const bytes = this.#carry === undefined ? chunk : Buffer.concat([this.#carry, chunk])
    this.#carry = undefined
    let end = bytes.length
    while (end > 0 && bytes[end - 1] !== NUL) end--
    if (end < bytes.length) this.#carry = Buffer.from(bytes.subarray(end))
    if (end > 0) this.#stamp(bytes, end)
  }

  /** The output has ended: a last name without its NUL is a name too. */
  finish(): void {
    const carry = this.#carry
    this.#carry = undefined
    if (carry !== undefined) this.#stamp(Buffer.concat([carry, Buffer.of(NUL)]), carry.length + 1)
  }

  /** Stamps the names in `bytes[0, end)`, each ended by a NUL, and hands them on in one chunk. */
  #stamp(bytes: Uint8Array, end: number): void {
    let out = this.#out
    let at = 0
    let start = 0
    while (start < end) {
      let nul = start
      while (bytes[nul] !== NUL) nul++
      if (at + STAMP_MAX_BYTES + nul + 1 - start > out.length) {
        const grown = Buffer.allocUnsafe(Math.max(out.length * 2, at + STAMP_MAX_BYTES + nul + 1 - start))
        out.copy(grown, 0, 0, at)
        out = this.#out = grown
      }
      const time = this.#time
      const answer = this.#timeOf(bytes, start, nul, time)
      if (answer === 'recorded' || answer === 'read') {
        if (answer === 'recorded') this.recorded++
        else this.read++
        at = writeStamp(out, at, time)
        for (let i = start; i <= nul; i++) out[at++] = bytes[i]!
      } else {
        this.unstatted.push(`‘${Buffer.from(bytes.subarray(start, nul)).toString('utf8')}’: ${answer.unreadable}`)
      }
      start = nul + 1
    }
    if (at > 0) this.#sink(out.subarray(0, at))
  }
}

/** Writes `SECONDS.NANOS TAB` at `at`, as find's `%T@` prints a time (its tenth digit, always 0, left out); returns where it ends. */
function writeStamp(out: Buffer, at: number, { seconds, nanos }: FileTime): number {
  let whole = seconds
  if (whole < 0) {
    out[at++] = MINUS
    whole = -whole
  }
  if (Number.isSafeInteger(whole)) {
    let digits = 1
    for (let power = 10; power <= whole; power *= 10) digits++
    for (let i = at + digits - 1; i >= at; i--) {
      out[i] = ZERO + (whole % 10)
      whole = Math.floor(whole / 10)
    }
    at += digits
  } else {
    // Past 2^53 seconds (a time a file system allows, no clock gives) the parser reads the digits
    // into the same double: write that double's own.
    at += out.write(BigInt(whole).toString(), at, 'latin1')
  }
  out[at++] = DOT
  let rest = nanos
  for (let i = at + NANO_DIGITS - 1; i >= at; i--) {
    out[i] = ZERO + (rest % 10)
    rest = Math.floor(rest / 10)
  }
  at += NANO_DIGITS
  out[at++] = TAB
  return at
}
