// The `D` or `F` and NUL every grep script prints first: what the paths after it are relative to.
import { SearchError } from '../errors.js'

/** Whether rg searched inside a directory target or one file. */
export type Searched = 'directory' | 'file'

/**
 * Reads the script's first two bytes and hands every later byte to `rest`, so a parser of rg's (or the
 * mtime helper's) output never sees them. `searched` throws SEARCH_FAILED when they were not there.
 */
export class ScriptHead {
  readonly #rest: (chunk: Uint8Array) => void
  #head = Buffer.alloc(0)
  #searched: Searched | undefined

  constructor(rest: (chunk: Uint8Array) => void) {
    this.#rest = rest
  }

  /** Takes the next chunk of stdout. */
  push(chunk: Uint8Array): void {
    if (this.#searched !== undefined) return this.#rest(chunk)
    const bytes = Buffer.concat([this.#head, chunk])
    if (bytes.length < 2) {
      this.#head = bytes
      return
    }
    this.#searched = bytes[1] === 0 && bytes[0] === 0x44 ? 'directory' : bytes[1] === 0 && bytes[0] === 0x46 ? 'file' : undefined
    this.#head = bytes
    if (this.#searched !== undefined && bytes.length > 2) this.#rest(bytes.subarray(2))
  }

  /** What the head said; throws when the output did not start with one. */
  searched(): Searched {
    if (this.#searched !== undefined) return this.#searched
    return this.#unreadable()
  }

  /**
   * What the head said of a run the executor stopped: undefined when it stopped before the head
   * arrived, so nothing followed it; throws when the output did not start with one.
   */
  searchedSoFar(): Searched | undefined {
    if (this.#searched !== undefined || this.#head.length < 2) return this.#searched
    return this.#unreadable()
  }

  #unreadable(): never {
    throw new SearchError(
      'SEARCH_FAILED',
      `Grep could not parse its script output near ${JSON.stringify(this.#head.toString('utf8', 0, 80))}; the search result cannot be trusted.`,
    )
  }
}
