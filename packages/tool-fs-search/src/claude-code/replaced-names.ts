// Counting the listed files whose names are not valid UTF-8, as the listing arrives.
import { isUtf8 } from 'node:buffer'

const NUL = 0x00

/**
 * Counts the NUL-ended records of the mtime helper's listing (`mtime TAB name NUL`) that are not valid
 * UTF-8: the names the page shows with U+FFFD for bytes. Decoded, a replaced byte and a U+FFFD a name
 * holds are the same three bytes, so the count is taken from the bytes as they arrive. A stretch of
 * whole records is checked at once, and record by record only when it is not valid (rarely), so
 * a listing of 100k names costs one native check per chunk.
 */
export class ReplacedNames {
  /** The record still arriving: what came after the last NUL. */
  #partial: Buffer[] = []
  #count = 0

  /** Takes the next chunk (what it holds of an unfinished record is copied: the executor may reuse it). */
  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    const first = bytes.indexOf(NUL)
    if (first === -1) {
      this.#partial.push(Buffer.from(bytes))
      return
    }
    this.#countRecord(Buffer.concat([...this.#partial, bytes.subarray(0, first)]))
    const last = bytes.lastIndexOf(NUL)
    // The records between the first NUL and the last, each ending at its NUL.
    const whole = bytes.subarray(first + 1, last + 1)
    if (!isUtf8(whole)) {
      for (let start = 0; start < whole.length;) {
        const end = whole.indexOf(NUL, start)
        this.#countRecord(whole.subarray(start, end))
        start = end + 1
      }
    }
    this.#partial = last + 1 < bytes.length ? [Buffer.from(bytes.subarray(last + 1))] : []
  }

  /** How many names held bytes that were not valid UTF-8, a last one without its NUL included. */
  finish(): number {
    this.#countRecord(Buffer.concat(this.#partial))
    this.#partial = []
    return this.#count
  }

  #countRecord(record: Buffer): void {
    if (!isUtf8(record)) this.#count += 1
  }
}
