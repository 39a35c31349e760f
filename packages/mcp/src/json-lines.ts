// Newline-delimited messages cut from a byte stream, each byte looked at once, none kept past the size limit.
import { MessageShapeScanner, type MessageShape } from './message-shape.js'

/** What the splitter hands on: each line within the limit as text, and each longer one as its size and shape. */
export interface LineSink {
  /** A complete line within the limit, decoded as UTF-8, without its line feed or a CR before it. */
  line(text: string): void
  /** A line over the limit, which was dropped: how many bytes it held, and what it was. */
  oversized(bytes: number, shape: MessageShape): void
}

/**
 * Cuts a stream into lines (MCP's stdio framing: one JSON-RPC message per line). Each chunk is searched
 * for line feeds from where the last search stopped, and a line's pieces are joined once, when its line
 * feed arrives, so a large message arriving in many small chunks costs time linear in its size. Once a
 * line passes `maxBytes` its pieces are let go, and the rest of it is only read for its shape as it
 * passes, so memory stays bounded however long a line is.
 */
export class JsonLineSplitter {
  readonly #maxBytes: number
  readonly #sink: LineSink
  #pieces: Buffer[] = []
  #bytes = 0
  /** Set while the current line is over the limit. */
  #dropping: MessageShapeScanner | undefined

  constructor(maxBytes: number, sink: LineSink) {
    this.#maxBytes = maxBytes
    this.#sink = sink
  }

  /** Takes the next chunk of the stream. */
  push(chunk: Buffer): void {
    for (let start = 0; start < chunk.length;) {
      const feed = chunk.indexOf(0x0a, start)
      const end = feed === -1 ? chunk.length : feed
      this.#take(chunk, start, end)
      if (feed === -1) return
      this.#endLine()
      start = feed + 1
    }
  }

  /** Drops a line still incomplete (the stream ended without its line feed). */
  clear(): void {
    this.#pieces = []
    this.#bytes = 0
    this.#dropping = undefined
  }

  #take(chunk: Buffer, start: number, end: number): void {
    this.#bytes += end - start
    if (this.#dropping === undefined && this.#bytes > this.#maxBytes) {
      this.#dropping = new MessageShapeScanner()
      for (const piece of this.#pieces) this.#dropping.scan(piece)
      this.#pieces = []
    }
    if (this.#dropping !== undefined) this.#dropping.scan(chunk, start, end)
    else if (end > start) this.#pieces.push(chunk.subarray(start, end))
  }

  #endLine(): void {
    const bytes = this.#bytes
    const dropping = this.#dropping
    const pieces = this.#pieces
    this.clear()
    if (dropping !== undefined) return this.#sink.oversized(bytes, dropping.shape())
    const joined = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, bytes)
    const text = joined.toString('utf8')
    this.#sink.line(text.endsWith('\r') ? text.slice(0, -1) : text)
  }
}
