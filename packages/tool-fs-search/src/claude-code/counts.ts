// rg's `--count --null` output: `path NUL count NEWLINE` per file, parsed at the end or, past half the raw cap, in batches.
import { isUtf8 } from 'node:buffer'
import { SearchError } from '../errors.js'

/** One file's count as rg printed it. */
export interface FileCount {
  /** The path as rg printed it, decoded (invalid UTF-8 as U+FFFD). */
  path: string
  count: number
  /** The path held bytes that were not valid UTF-8, shown as U+FFFD. */
  replaced: boolean
}

/**
 * Collects rg's count output and parses it at the end. The path ends at its NUL, so a name with a
 * newline parses. With `flush`, the output is bounded by `capacityBytes` / 2 in memory
 * (docs/design.md#results-bigger-than-memory): each time it fills that, its whole records go to `flush`
 * and only the record still arriving stays; a record that does not parse is thrown by `finish`.
 */
export class CountParser {
  #chunks: Buffer[] = []
  #held = 0
  readonly #batchBytes: number
  readonly #flush: ((counts: FileCount[]) => void) | undefined
  #failure: SearchError | undefined
  /** Some records went to `flush`: `finish` gives only those since. */
  streamed = false

  constructor(capacityBytes = Number.POSITIVE_INFINITY, flush?: (counts: FileCount[]) => void) {
    this.#batchBytes = capacityBytes / 2
    this.#flush = flush
  }

  /** Takes the next chunk (copied: the executor may reuse it). */
  push(chunk: Uint8Array): void {
    // After a record that does not parse nothing else will be read.
    if (this.#failure !== undefined) return
    this.#chunks.push(Buffer.from(chunk))
    this.#held += chunk.length
    if (this.#flush === undefined || this.#held < this.#batchBytes) return
    const bytes = Buffer.concat(this.#chunks)
    let counts: FileCount[]
    let rest: number
    try {
      ;({ counts, rest } = parseCounts(bytes, 'stopped'))
    } catch (error) {
      this.#failure = error as SearchError
      this.#chunks = []
      return
    }
    this.#chunks = [bytes.subarray(rest)]
    this.#held = bytes.length - rest
    this.streamed = true
    this.#flush(counts)
  }

  /** Every file's count (since the last batch), in rg's order; throws SEARCH_FAILED for a record that does not parse. */
  finish(): FileCount[] {
    return this.#parse('ended')
  }

  /**
   * The counts that arrived before the executor stopped the run
   * (docs/design.md#a-timeout-returns-what-was-found): a last record still without its newline is
   * dropped, since its rest will never come; one before it that does not parse is SEARCH_FAILED.
   */
  finishStopped(): FileCount[] {
    return this.#parse('stopped')
  }

  #parse(output: 'ended' | 'stopped'): FileCount[] {
    if (this.#failure !== undefined) throw this.#failure
    return parseCounts(Buffer.concat(this.#chunks), output).counts
  }
}

/** The records of `bytes`, and where the first one not parsed starts (a stopped output's last, still arriving). */
function parseCounts(bytes: Buffer, output: 'ended' | 'stopped'): { counts: FileCount[]; rest: number } {
  // Most outputs are valid UTF-8 throughout: then no path needs checking.
  const valid = isUtf8(bytes)
  const counts: FileCount[] = []
  let pos = 0
  while (pos < bytes.length) {
    const nul = bytes.indexOf(0, pos)
    let end = nul + 1
    while (end < bytes.length && bytes[end]! >= 0x30 && bytes[end]! <= 0x39) end += 1
    if (output === 'stopped' && (nul === -1 || end === bytes.length)) break
    if (nul === -1 || end === nul + 1 || (end < bytes.length && bytes[end] !== 0x0a)) {
      throw new SearchError(
        'SEARCH_FAILED',
        `Grep could not parse rg's count output near ${JSON.stringify(bytes.toString('utf8', pos, pos + 80))}; the search result cannot be trusted.`,
      )
    }
    counts.push({
      path: bytes.toString('utf8', pos, nul),
      count: Number(bytes.toString('latin1', nul + 1, end)),
      replaced: !valid && !isUtf8(bytes.subarray(pos, nul)),
    })
    pos = end + 1
  }
  return { counts, rest: pos }
}
