// The listed files grouped by modification time as they are parsed: one bucket per time, its files in name order while few.

/** Orders two files by name: negative, zero or positive. */
export type NameOrder = (a: number, b: number) => number

// A bucket keeps its files in name order up to this many; past it they are only collected, and sorted
// once the listing is complete (an insertion costs a walk of the bucket, a native sort does not).
export const ORDERED_MAX = 32
// Buckets and hash slots the arrays first hold.
const INITIAL_BUCKETS = 1024
const INITIAL_SLOTS = 4096

/**
 * The distinct modification times of a listing, built while the script still runs: a tree shares few
 * times (16k for 118k files). Each time is a bucket, found through a hash table that stays at most
 * half full; a bucket links its files through `next`, newest parsed first. Once the listing ends only
 * the buckets, and the names within each, remain to be sorted.
 */
export class TimeBuckets {
  /** Buckets so far. */
  count = 0
  /** Each bucket's time as whole seconds and nanoseconds, both negative before 1970. */
  seconds = new Float64Array(INITIAL_BUCKETS)
  nanos = new Int32Array(INITIAL_BUCKETS)
  /** Each bucket's first file. */
  first = new Int32Array(INITIAL_BUCKETS)
  /** Each file's next in its bucket, or -1. */
  next: Int32Array
  /** Bucket + 1 per slot, 0 for empty; at most half full, so a lookup takes a probe or two. */
  #slots = new Int32Array(INITIAL_SLOTS)

  /** `files`: how many files `next` first holds (`growFiles` makes room for more). */
  constructor(files: number) {
    this.next = new Int32Array(files)
  }

  /** Makes room for `files` files. */
  growFiles(files: number): void {
    const next = new Int32Array(files)
    next.set(this.next)
    this.next = next
  }

  /** Files `file` under its time. */
  add(file: number, seconds: number, nanos: number): void {
    const bucket = this.#bucket(seconds, nanos)
    this.next[file] = this.first[bucket]!
    this.first[bucket] = file
  }

  /** The bucket of a time, a new one when it is new. */
  #bucket(seconds: number, nanos: number): number {
    // Room for one more first, so a new bucket goes into the table it was looked up in.
    if (2 * (this.count + 1) > this.#slots.length) this.#rehash()
    const slots = this.#slots
    const mask = slots.length - 1
    for (let slot = hash(seconds, nanos) & mask; ; slot = (slot + 1) & mask) {
      const bucket = slots[slot]! - 1
      if (bucket === -1) {
        slots[slot] = this.count + 1
        return this.#create(seconds, nanos)
      }
      if (this.seconds[bucket] === seconds && this.nanos[bucket] === nanos) return bucket
    }
  }

  #create(seconds: number, nanos: number): number {
    const bucket = this.count
    if (bucket === this.seconds.length) this.#growBuckets()
    this.seconds[bucket] = seconds
    this.nanos[bucket] = nanos
    this.first[bucket] = -1
    this.count = bucket + 1
    return bucket
  }

  #growBuckets(): void {
    const size = 2 * this.seconds.length
    const grow = <T extends Float64Array | Int32Array>(array: T, grown: T): T => {
      grown.set(array)
      return grown
    }
    this.seconds = grow(this.seconds, new Float64Array(size))
    this.nanos = grow(this.nanos, new Int32Array(size))
    this.first = grow(this.first, new Int32Array(size))
  }

  /** Doubles the hash table and files every bucket again. */
  #rehash(): void {
    const slots = new Int32Array(2 * this.#slots.length)
    const mask = slots.length - 1
    for (let bucket = 0; bucket < this.count; bucket += 1) {
      let slot = hash(this.seconds[bucket]!, this.nanos[bucket]!) & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = bucket + 1
    }
    this.#slots = slots
  }
}

function hash(seconds: number, nanos: number): number {
  return Math.imul(seconds | 0, 0x9e3779b1) ^ Math.imul(nanos, 0x85ebca6b)
}
