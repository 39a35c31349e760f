// Trigrams: three bytes of a file's contents, ASCII letters folded to lower case, as one 24-bit key.

/** A byte as the index keys it: ASCII A–Z folded to a–z, every other byte itself. */
export function foldByte(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte
}

/** The key of three bytes (each already folded). */
export function trigramKey(a: number, b: number, c: number): number {
  return (a << 16) | (b << 8) | c
}

/**
 * The trigram key at each offset of a byte string given as a latin1 string (each char one byte),
 * folded: a query literal's trigrams in order, as a phrase lines them up. Files go through
 * `TrigramCollector`.
 */
export function trigramsAt(bytes: string): number[] {
  const keys: number[] = []
  for (let i = 0; i + 2 < bytes.length; i++) {
    keys.push(trigramKey(foldByte(bytes.charCodeAt(i)), foldByte(bytes.charCodeAt(i + 1)), foldByte(bytes.charCodeAt(i + 2))))
  }
  return keys
}

/** The distinct trigram keys of a byte string given as a latin1 string, folded (see `trigramsAt`). */
export function literalTrigrams(bytes: string): number[] {
  return [...new Set(trigramsAt(bytes))]
}

// 2^24 keys, one slot each: the file that last had the key, as a generation, and where in it the key starts.
const KEY_SPACE = 1 << 24
// A slot is 32 bits: a generation above, the 16 position bits below.
const GENERATIONS = 0xffff

/**
 * Where a trigram starts in a file, as the index keeps it: one bit for each start position modulo 16
 * (docs/design.md#a-literals-trigrams-must-line-up). Two trigrams of one literal, `d` bytes apart, can
 * both be in a match only if some bit of the first, moved `d` places, is a bit of the second.
 */
export const POSITION_BITS = 16

/**
 * Collects the distinct trigrams of one file after another, each with the positions it starts at
 * modulo 16. A key's slot holds its positions and the generation of the file they are from, so a key
 * is new for a file when its slot holds another generation; nothing is cleared between files, only
 * once every 65,535 files, when the generations start again. One slot of 32 bits, not a file id and
 * its positions in two tables: each byte of a file costs one random access to the table, not two.
 */
export class TrigramCollector {
  private readonly slots = new Uint32Array(KEY_SPACE)
  private generation = 0
  // The file's distinct keys so far: doubled as a file needs, at most 2^24.
  private seen = new Uint32Array(1 << 12)

  /** Collects one file: each of its distinct keys, with its position mask, goes to `out`; returns how many. */
  collect(bytes: Uint8Array, out: (key: number, positions: number) => void): number {
    if (bytes.length < 3) return 0
    if (this.generation === GENERATIONS) {
      this.slots.fill(0)
      this.generation = 0
    }
    const generation = ++this.generation
    const tag = generation << 16
    const { slots } = this
    let seen = this.seen
    let added = 0
    let a = foldByte(bytes[0]!)
    let b = foldByte(bytes[1]!)
    for (let i = 2; i < bytes.length; i++) {
      const c = foldByte(bytes[i]!)
      const key = (a << 16) | (b << 8) | c
      const bit = 1 << ((i - 2) & (POSITION_BITS - 1))
      const slot = slots[key]!
      if (slot >>> 16 !== generation) {
        slots[key] = tag | bit
        if (added === seen.length) {
          const grown = new Uint32Array(seen.length * 2)
          grown.set(seen)
          this.seen = seen = grown
        }
        seen[added++] = key
      } else slots[key] = slot | bit
      a = b
      b = c
    }
    for (let k = 0; k < added; k++) out(seen[k]!, slots[seen[k]!]! & 0xffff)
    return added
  }
}
