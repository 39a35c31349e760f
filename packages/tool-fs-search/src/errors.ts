// The SEARCH_* failure vocabulary.
import { HarnessError } from '@dsh/core'

/**
 * The search tools' failure vocabulary (docs/design.md#the-search-tools). A search never turns one of these into "no matches":
 * the model must be able to tell an empty result from a search that did not run.
 */
export type SearchErrorCode =
  /** rg rejected the regex or the include glob. */
  | 'SEARCH_INVALID_PATTERN'
  /** The search could not run or its output could not be read: missing root, rg gone, a bad record. */
  | 'SEARCH_FAILED'
  /** rg produced more than `rawOutputMaxBytes` of output; it was stopped and nothing is reported. */
  | 'SEARCH_RAW_OUTPUT_OVERFLOW'
  /**
   * The caller's cancellation or the registry's deadline stopped the search, or a follow-up run timed
   * out; a search the executor's timeout stopped returns what it found (docs/design.md#a-timeout-returns-what-was-found).
   */
  | 'SEARCH_ABORTED'

/** An expected search failure, with a message that tells the model what to do next. */
export class SearchError extends HarnessError<SearchErrorCode> {}
