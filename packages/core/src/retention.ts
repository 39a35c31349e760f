/**
 * Retention: keep a bounded part of a result and say exactly how much was dropped. Items and text
 * are kept from the head; text is measured in UTF-8 bytes and never cut inside a code point.
 */

/** How many items a retainer keeps, from the head. */
export interface ItemRetainerOptions {
  maxItems: number
}

/** What a retainer kept and what it saw. */
export interface ItemRetention<T> {
  items: T[]
  kept: number
  total: number
  truncated: boolean
}

/** Keeps the first `maxItems` items pushed into it and counts the rest. */
export class ItemRetainer<T> {
  readonly #maxItems: number
  readonly #items: T[] = []
  #total = 0

  constructor(options: ItemRetainerOptions) {
    assertLimit('maxItems', options.maxItems)
    this.#maxItems = options.maxItems
  }

  /** Offers an item; returns whether it was kept. */
  push(item: T): boolean {
    this.#total += 1
    if (this.#items.length >= this.#maxItems) return false
    this.#items.push(item)
    return true
  }

  result(): ItemRetention<T> {
    return { items: [...this.#items], kept: this.#items.length, total: this.#total, truncated: this.#total > this.#items.length }
  }
}

/** How many UTF-8 bytes of a text to keep, from the head. */
export interface TextRetainerOptions {
  maxBytes: number
}

/** A retained text with its byte accounting. */
export interface TextRetention {
  text: string
  keptBytes: number
  totalBytes: number
  truncated: boolean
}

const encoder = new TextEncoder()

/** Cuts texts to at most `maxBytes` UTF-8 bytes at a code-point boundary. Lone surrogates count as U+FFFD. */
export class TextRetainer {
  readonly #maxBytes: number

  constructor(options: TextRetainerOptions) {
    assertLimit('maxBytes', options.maxBytes)
    this.#maxBytes = options.maxBytes
  }

  retain(input: string): TextRetention {
    const text = input.isWellFormed() ? input : input.toWellFormed()
    const totalBytes = Buffer.byteLength(text, 'utf8')
    if (totalBytes <= this.#maxBytes) return { text, keptBytes: totalBytes, totalBytes, truncated: false }
    const kept = headOf(text, this.#maxBytes)
    return { text: kept, keptBytes: Buffer.byteLength(kept, 'utf8'), totalBytes, truncated: true }
  }
}

/** The longest prefix of `text` that encodes in `maxBytes`; encodeInto never writes half a code point. */
function headOf(text: string, maxBytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(maxBytes))
  return text.slice(0, read)
}

function assertLimit(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`)
}
