// A set of many paths held outside the JavaScript heap, for rg's file lists (docs/design.md#named-candidates).

/**
 * Byte strings (latin1 characters, as the index holds names) kept in one buffer with an
 * open-addressing table of typed arrays. A `Set` of a 500,000-file tree's paths is half a million heap
 * objects that every major garbage collection of the warm server marks again (~175 ms a collection,
 * measured); here they are a handful of arrays.
 */
export class PathSet {
  /** Slot → entry number + 1 (0: empty); a power of two, at least twice the entries. */
  private readonly table: Int32Array
  private readonly mask: number
  size = 0

  /**
   * `bytes` holds the entries; entry `k` is `bytes[starts[k], ends[k])`. Each distinct entry counts
   * once.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly starts: Uint32Array,
    private readonly ends: Uint32Array,
  ) {
    let slots = 2
    while (slots < starts.length * 2) slots *= 2
    this.table = new Int32Array(slots)
    this.mask = slots - 1
    for (let k = 0; k < starts.length; k++) {
      let slot = bytesHash(bytes, starts[k]!, ends[k]!) & this.mask
      for (;;) {
        const held = this.table[slot]!
        if (held === 0) {
          this.table[slot] = k + 1
          this.size++
          break
        }
        if (this.sameBytes(held - 1, k)) break
        slot = (slot + 1) & this.mask
      }
    }
  }

  /** Whether `path` (each character one byte) is an entry. */
  has(path: string): boolean {
    let hash = FNV_OFFSET
    for (let i = 0; i < path.length; i++) {
      const code = path.charCodeAt(i)
      // Not a latin1 string: no entry is.
      if (code > 0xff) return false
      hash = Math.imul(hash ^ code, FNV_PRIME)
    }
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const held = this.table[slot]!
      if (held === 0) return false
      if (this.equals(held - 1, path)) return true
    }
  }

  private equals(k: number, path: string): boolean {
    const start = this.starts[k]!
    if (this.ends[k]! - start !== path.length) return false
    for (let i = 0; i < path.length; i++) if (this.bytes[start + i] !== path.charCodeAt(i)) return false
    return true
  }

  private sameBytes(a: number, b: number): boolean {
    const [from, to] = [this.starts[a]!, this.starts[b]!]
    const length = this.ends[a]! - from
    if (this.ends[b]! - to !== length) return false
    for (let i = 0; i < length; i++) if (this.bytes[from + i] !== this.bytes[to + i]) return false
    return true
  }
}

// FNV-1a, 32 bits.
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

function bytesHash(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME)
  return hash
}
