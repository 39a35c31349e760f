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

/** How many keys there are: 2^24, one for each three bytes. */
export const KEY_SPACE = 1 << 24
// A slot is 32 bits: a generation above, the 16 position bits below.
const GENERATIONS = 0xffff

/**
 * Where a trigram starts in a file, as the index keeps it: one bit for each column it starts at (bytes
 * from the start of its line) modulo 16 (docs/design.md#a-literals-trigrams-must-line-up). Two
 * trigrams of one literal, `d` bytes apart with no line end between them, can both be in a match only
 * if some bit of the first, moved `d` places, is a bit of the second; one `d` bytes after a line end
 * in the literal starts at column `d - 1` past it.
 */
export const POSITION_BITS = 16

// Each byte folded (see `foldByte`), looked up: the collector's loop takes no branch on a byte.
const FOLDED = Uint8Array.from({ length: 256 }, (_, byte) => foldByte(byte))
// After a byte, the column (modulo 16) goes on (all bits kept) or, after a line end, starts again at 0.
const COLUMN_GOES_ON = Int32Array.from({ length: 256 }, (_, byte) => (byte === 0x0a ? 0 : -1))
// Bytes the collector keys between checks that its key buffer has room for each of them.
const BLOCK = 1 << 16

/**
 * Collects the distinct trigrams of one file after another, each with the columns it starts at
 * modulo 16. A key's slot holds its positions and the generation of the file they are from, so a key
 * is new for a file when its slot holds another generation; nothing is cleared between files, only
 * once every 65,535 files, when the generations start again. One slot of 32 bits, not a file id and
 * its positions in two tables: each byte of a file costs one random access to the table, not two.
 * The loop over a file's bytes takes no branch on what it reads (whether a key is new is half of
 * its text's bytes, and a mispredicted branch cost more than the table: 0.62x the time with none).
 */
export class TrigramCollector {
  // One slot a key: the file that last had the key, as a generation, and where in it the key starts.
  private readonly slots = new Uint32Array(KEY_SPACE)
  private generation = 0
  // The last file's distinct keys and their position masks: grown as a file needs.
  private seen = new Uint32Array(1 << 12)
  private masks = new Uint16Array(1 << 12)

  /** The distinct keys of the file `collect` was last given, the first `collect` returned of them. */
  get keys(): Uint32Array {
    return this.seen
  }

  /** The position mask of each of `keys`. */
  get positions(): Uint16Array {
    return this.masks
  }

  /** Collects one file's distinct keys, each with its position mask, into `keys` and `positions`; returns how many. */
  collect(bytes: Uint8Array): number {
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
    let a = FOLDED[bytes[0]!]!
    let b = FOLDED[bytes[1]!]!
    // The column of the trigram starting at `i - 2`, modulo 16.
    let column = 0
    for (let from = 2; from < bytes.length; from += BLOCK) {
      const to = Math.min(bytes.length, from + BLOCK)
      // Each byte writes its key at `added`, which moves on only for a new key: room for a block's worth.
      if (added + (to - from) > seen.length) {
        const grown = new Uint32Array(Math.max(seen.length * 2, added + (to - from)))
        grown.set(seen.subarray(0, added))
        this.seen = seen = grown
      }
      for (let i = from; i < to; i++) {
        const c = FOLDED[bytes[i]!]!
        const key = (a << 16) | (b << 8) | c
        const slot = slots[key]!
        // 1 when the slot is another file's (its generation differs), else 0, without a branch.
        const other = (slot >>> 16) ^ generation
        const isNew = (other | -other) >>> 31
        slots[key] = (slot & (isNew - 1)) | tag | (1 << column)
        seen[added] = key
        added += isNew
        column = (column + 1) & (POSITION_BITS - 1) & COLUMN_GOES_ON[a]!
        a = b
        b = c
      }
    }
    if (this.masks.length < seen.length) this.masks = new Uint16Array(seen.length)
    const { masks } = this
    for (let k = 0; k < added; k++) masks[k] = slots[seen[k]!]! & 0xffff
    return added
  }
}
