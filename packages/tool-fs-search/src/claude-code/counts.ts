// rg's `--count --null` output: `path NUL count NEWLINE` per file, parsed once the output has ended.
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
 * Collects rg's count output and parses it at the end. The output is one short record per matching
 * file, bounded by the raw output cap; the path ends at its NUL, so a name with a newline parses.
 */
export class CountParser {
  readonly #chunks: Buffer[] = []

  /** Takes the next chunk (copied: the executor may reuse it). */
  push(chunk: Uint8Array): void {
    this.#chunks.push(Buffer.from(chunk))
  }

  /** Every file's count, in rg's order; throws SEARCH_FAILED for a record that does not parse. */
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
    const bytes = Buffer.concat(this.#chunks)
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
    return counts
  }
}
