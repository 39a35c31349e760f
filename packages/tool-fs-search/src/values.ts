// What glob and grep return as a result's `value`: the whole result, for a host (never sent to a model).
import type { SearchIndexUse } from '@dsh/core'
import type { GrepMatch } from './engine/grep/parse.js'

export type { GrepMatch }

/** A glob result's value: every path it listed, newest modified first, not only the page's. */
export interface GlobValue {
  /**
   * Relative to the session's working directory, as the page shows them; for a listing larger than
   * memory (`pathsCut`), the newest `globMaxResults`, which the page was chosen from: the rest is only
   * in the spill (docs/design.md#results-bigger-than-memory).
   */
  paths: string[]
  /** Set when `paths` holds only the newest paths, not all `total`. */
  pathsCut?: true
  total: number
  /** True when the page showed fewer paths than `paths` holds (the rest were spilled). */
  truncated: boolean
  /** What the listing left out: paths rg could not read, files whose modification time could not be read. */
  incomplete: string[]
  /** How a content index took part, when one was consulted: `candidates` counts the times it gave. */
  index?: SearchIndexUse
}

/** A grep result's value: every matched line, ordered by path then line, not only the page's. */
export interface GrepValue {
  /**
   * Every matched line; for a result larger than memory (`matchesCut`), those of the files that sort
   * first, which the page was chosen from: the rest is only in the spill (docs/design.md#results-bigger-than-memory).
   */
  matches: GrepMatch[]
  /** Set when `matches` holds only the first files' matches, not all `total`. */
  matchesCut?: true
  total: number
  /** True when the page showed fewer matches than `matches` holds (the rest were spilled). */
  truncated: boolean
  /** Paths rg could not read, or what it printed when it named none. */
  incomplete: string[]
  /** How a content index took part, when one was consulted. */
  index?: SearchIndexUse
}
