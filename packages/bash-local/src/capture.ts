// Bounded capture of a child's output: the head of stdout, the tail of stderr, exact byte totals.
import type { CapturedOutput } from '@dsh/core'

/**
 * Bounded capture of a byte stream: stdout keeps its head, stderr its tail, and both count every
 * byte. Memory stays within the cap whatever the stream's size, and the kept bytes are cut on a
 * UTF-8 boundary so a cap never leaves half a character (invalid input still decodes to U+FFFD).
 */

/** Keeps the first `maxBytes` of a stream. */
export class HeadCapture {
  readonly #maxBytes: number
  readonly #chunks: Buffer[] = []
  #kept = 0
  #total = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  /** Takes a chunk; returns true once the stream has passed the cap. */
  push(chunk: Buffer): boolean {
    this.#total += chunk.length
    const room = this.#maxBytes - this.#kept
    if (room > 0) {
      const part = chunk.subarray(0, room)
      this.#chunks.push(part)
      this.#kept += part.length
    }
    return this.#total > this.#maxBytes
  }

  /**
   * The capture; `text` is joined and decoded on first read, because a caller that rejects an
   * overflowed run never reads it (decoding 20 MB costs ~250 ms and doubles the memory held).
   */
  result(): CapturedOutput {
    const truncated = this.#total > this.#maxBytes
    const chunks = this.#chunks
    const length = this.#kept
    let text: string | undefined
    return {
      get text(): string {
        if (text === undefined) {
          const bytes = Buffer.concat(chunks, length)
          text = (truncated ? bytes.subarray(0, completeLength(bytes)) : bytes).toString('utf8')
          chunks.length = 0 // the bytes live on in the text; let the buffers go
        }
        return text
      },
      truncated,
      totalBytes: this.#total,
    }
  }
}

/**
 * Hands the first `maxBytes` of a stream to a sink as they arrive and keeps none of them, so a
 * consumer that parses while the command runs holds the only copy (docs/design.md#streamed-stdout).
 */
export class ForwardCapture {
  readonly #maxBytes: number
  readonly #sink: (chunk: Uint8Array) => void
  #total = 0

  constructor(maxBytes: number, sink: (chunk: Uint8Array) => void) {
    this.#maxBytes = maxBytes
    this.#sink = sink
  }

  /** Forwards what fits under the cap; returns true once the stream has passed it. */
  push(chunk: Buffer): boolean {
    const room = this.#maxBytes - this.#total
    this.#total += chunk.length
    if (room > 0) this.#sink(room < chunk.length ? chunk.subarray(0, room) : chunk)
    return this.#total > this.#maxBytes
  }

  /** The totals; the text is empty, since the sink had the bytes. */
  result(): CapturedOutput {
    return { text: '', truncated: this.#total > this.#maxBytes, totalBytes: this.#total }
  }
}

/** Keeps the last `maxBytes` of a stream in a ring allocated on the first byte. */
export class TailCapture {
  readonly #maxBytes: number
  #ring: Buffer | undefined
  #end = 0
  #size = 0
  #total = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length
    const ring = (this.#ring ??= Buffer.allocUnsafe(this.#maxBytes))
    const bytes = chunk.subarray(Math.max(0, chunk.length - this.#maxBytes))
    const first = bytes.copy(ring, this.#end)
    bytes.copy(ring, 0, first)
    this.#end = (this.#end + bytes.length) % this.#maxBytes
    this.#size = Math.min(this.#maxBytes, this.#size + bytes.length)
  }

  result(): CapturedOutput {
    const ring = this.#ring ?? Buffer.alloc(0)
    // Until the ring wraps, its bytes run from 0 to size; after, from end round to end.
    const bytes =
      this.#size < this.#maxBytes ? ring.subarray(0, this.#size) : Buffer.concat([ring.subarray(this.#end), ring.subarray(0, this.#end)])
    const truncated = this.#total > this.#maxBytes
    const kept = truncated ? bytes.subarray(leadingContinuationBytes(bytes)) : bytes
    return { text: kept.toString('utf8'), truncated, totalBytes: this.#total }
  }
}

/** The length of `bytes` without a trailing, incomplete UTF-8 sequence. */
export function completeLength(bytes: Buffer): number {
  let lead = bytes.length - 1
  while (lead >= 0 && bytes.length - lead < 4 && isContinuation(bytes[lead]!)) lead -= 1
  if (lead < 0) return bytes.length
  const byte = bytes[lead]!
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
  return bytes.length - lead < needed ? lead : bytes.length
}

/** How many bytes at the start of `bytes` continue a character that began before it (at most 3). */
export function leadingContinuationBytes(bytes: Buffer): number {
  let start = 0
  while (start < 3 && start < bytes.length && isContinuation(bytes[start]!)) start += 1
  return start
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80
}
