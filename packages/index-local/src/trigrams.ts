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

// 2^24 keys: one slot each for "last file that had it", and one for where in that file it was.
const KEY_SPACE = 1 << 24

/**
 * Where a trigram starts in a file, as the index keeps it: one bit for each start position modulo 16
 * (docs/design.md#a-literals-trigrams-must-line-up). Two trigrams of one literal, `d` bytes apart, can
 * both be in a match only if some bit of the first, moved `d` places, is a bit of the second.
 */
export const POSITION_BITS = 16

/**
 * Collects the distinct trigrams of one file after another, each with the positions it starts at
 * modulo 16, without clearing anything between files: a key is new for file `n` when its slot does
 * not already hold `n + 1`.
 */
export class TrigramCollector {
  private readonly lastFile = new Int32Array(KEY_SPACE)
  private readonly positions = new Uint16Array(KEY_SPACE)
  // The file's distinct keys so far: doubled as a file needs, at most 2^24.
  private seen = new Uint32Array(1 << 12)

  /** Appends the file's distinct keys, each with its position mask, to `out` and returns how many it appended. */
  collect(fileId: number, bytes: Uint8Array, out: (key: number, positions: number) => void): number {
    const mark = fileId + 1
    const { lastFile: last, positions } = this
    if (bytes.length < 3) return 0
    let seen = this.seen
    let added = 0
    let a = foldByte(bytes[0]!)
    let b = foldByte(bytes[1]!)
    for (let i = 2; i < bytes.length; i++) {
      const c = foldByte(bytes[i]!)
      const key = (a << 16) | (b << 8) | c
      const bit = 1 << ((i - 2) & (POSITION_BITS - 1))
      if (last[key] !== mark) {
        last[key] = mark
        positions[key] = bit
        if (added === seen.length) {
          const grown = new Uint32Array(seen.length * 2)
          grown.set(seen)
          this.seen = seen = grown
        }
        seen[added++] = key
      } else positions[key]! |= bit
      a = b
      b = c
    }
    for (let k = 0; k < added; k++) out(seen[k]!, positions[seen[k]!]!)
    return added
  }
}
