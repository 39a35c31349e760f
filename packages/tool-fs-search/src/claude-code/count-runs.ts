// Grep's count output larger than memory: sorted runs of display path and count on the scratch file, merged with equal paths added.
import type { SpillScratch } from '@dsh/core'
import { memoryScratch, RunBytes, type Run, type RunStore } from '../engine/glob/runs.js'
import type { ShownCount } from './files.js'

// A record on the scratch file: count (f64), replaced (u8), path length (u32), the path's UTF-8 bytes.
const HEADER_BYTES = 13
// Bytes a run is written in, and each run's read buffer while merging.
const BLOCK_BYTES = 1 << 16
const REPLACEMENT = '\uFFFD'

/** A run being read back: its current entry. */
class RunReader {
  readonly #bytes: RunBytes
  entry: ShownCount = { path: '', count: 0, replaced: false }

  constructor(scratch: RunStore, run: Run) {
    this.#bytes = new RunBytes(scratch, run)
  }

  /** Moves to the next entry; false past the run's end. */
  advance(): boolean {
    const record = this.#bytes.record(HEADER_BYTES, 9)
    if (record === undefined) return false
    const buffer = this.#bytes.buffer
    const path = record.at + HEADER_BYTES
    this.entry = {
      count: buffer.readDoubleLE(record.at),
      replaced: buffer[record.at + 8] === 1,
      path: buffer.toString('utf8', path, path + record.length),
    }
    return true
  }
}

/**
 * The runs of one count output (docs/design.md#results-bigger-than-memory): each a stretch of the
 * output that filled the parser's buffer, its counts shown, added by display path and sorted as
 * `showCounts` sorts the whole, written to the scratch file. The merge adds equal display paths of
 * different runs together, as `showCounts` does within one. Without a scratch file only each run's
 * first `keepPerRun` entries are kept, in memory: the merge's first `keepPerRun` entries are right
 * (an entry's place in a run is never later than its place in the merge), and the totals are counted.
 */
export class CountRuns {
  readonly #scratch: RunStore
  readonly #keepPerRun: number
  readonly #runs: Run[] = []
  /** Entries in every run, before equal paths of different runs are added together. */
  #entries = 0
  /** Matching lines in every run. */
  matches = 0
  /**
   * The display paths that hold U+FFFD, and whether one of their raw names was replaced: the only
   * paths two runs can both hold, since rg prints every path under one target the same way and only
   * a replaced byte makes two names display alike.
   */
  readonly #replacementPaths = new Map<string, boolean>()
  #repeats = 0
  /** Every entry is kept: the merge gives the complete result. */
  readonly complete: boolean

  constructor(scratch: SpillScratch | undefined, keepPerRun: number) {
    this.#scratch = scratch ?? memoryScratch()
    this.complete = scratch !== undefined
    this.#keepPerRun = scratch === undefined ? keepPerRun : Number.POSITIVE_INFINITY
  }

  /** Distinct display paths in the whole result. */
  get total(): number {
    return this.#entries - this.#repeats
  }

  /** Distinct display paths one of whose raw names held bytes that are not valid UTF-8. */
  get lossy(): number {
    let lossy = 0
    for (const replaced of this.#replacementPaths.values()) if (replaced) lossy += 1
    return lossy
  }

  /** Writes `counts` (shown, added and sorted by `showCounts`) as one run. */
  add(counts: readonly ShownCount[]): void {
    const block = Buffer.allocUnsafe(BLOCK_BYTES)
    let used = 0
    const flush = (): void => {
      if (used > 0) this.#scratch.append(block.subarray(0, used))
      used = 0
    }
    const offset = this.#scratch.size
    for (const [index, { path, count, replaced }] of counts.entries()) {
      this.matches += count
      if (path.includes(REPLACEMENT)) {
        const known = this.#replacementPaths.get(path)
        if (known !== undefined) this.#repeats += 1
        this.#replacementPaths.set(path, known === true || replaced)
      }
      if (index >= this.#keepPerRun) continue
      const length = Buffer.byteLength(path)
      if (used + HEADER_BYTES + length > BLOCK_BYTES) flush()
      const record = used + HEADER_BYTES + length > BLOCK_BYTES ? Buffer.allocUnsafe(HEADER_BYTES + length) : block
      const at = record === block ? used : 0
      record.writeDoubleLE(count, at)
      record[at + 8] = replaced ? 1 : 0
      record.writeUInt32LE(length, at + 9)
      record.write(path, at + HEADER_BYTES, 'utf8')
      if (record === block) used += HEADER_BYTES + length
      else this.#scratch.append(record)
    }
    flush()
    this.#runs.push({ offset, length: this.#scratch.size - offset })
    this.#entries += counts.length
  }

  /** The kept entries sorted by path, equal paths of different runs added together. */
  *merged(): Generator<ShownCount> {
    const heap: RunReader[] = []
    for (const run of this.#runs) {
      const reader = new RunReader(this.#scratch, run)
      if (reader.advance()) heap.push(reader)
    }
    for (let at = (heap.length >> 1) - 1; at >= 0; at -= 1) siftDown(heap, at)
    let pending: ShownCount | undefined
    while (heap.length > 0) {
      const top = heap[0]!
      const { entry } = top
      if (pending?.path === entry.path) {
        pending.count += entry.count
        pending.replaced ||= entry.replaced
      } else {
        if (pending !== undefined) yield pending
        pending = { ...entry }
      }
      if (!top.advance()) {
        const last = heap.pop()!
        if (heap.length === 0) break
        heap[0] = last
      }
      siftDown(heap, 0)
    }
    if (pending !== undefined) yield pending
  }
}

function siftDown(heap: RunReader[], from: number): void {
  let at = from
  for (;;) {
    const left = 2 * at + 1
    if (left >= heap.length) return
    const right = left + 1
    const child = right < heap.length && heap[right]!.entry.path < heap[left]!.entry.path ? right : left
    if (!(heap[child]!.entry.path < heap[at]!.entry.path)) return
    const swap = heap[at]!
    heap[at] = heap[child]!
    heap[child] = swap
    at = child
  }
}
