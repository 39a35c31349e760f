// The search card's input: the view dsh's grep and glob build (docs/design.md#the-search-card), read defensively.

/** One matched line: its 1-based number and the line as the model's page showed it. */
export interface SearchLineMatch {
  lineNumber: number
  line: string
}

/** One file's matches, in line order. */
export interface SearchFileMatches {
  path: string
  matches: SearchLineMatch[]
}

/** How a content index took part: it chose the files rg read, or the search read every file, and why. */
export type SearchIndexUse =
  | { used: true; indexedFiles: number; candidates: number; changed: number; named?: number }
  | { used: false; reason: string; detail: string }

/** grep's card: matches grouped by file. */
export interface SearchMatchesResultView {
  card: 'search'
  shape: 'matches'
  files: SearchFileMatches[]
  /** The card holds fewer results than `total`. */
  truncated: boolean
  /** Every result the search found. */
  total: number
  /** The search did not read everything (it timed out, or some paths were unreadable): more results may exist. */
  incomplete: boolean
  /** Present when a content index was consulted. */
  index?: SearchIndexUse
}

/** glob's card: paths, newest first. */
export interface SearchPathsResultView {
  card: 'search'
  shape: 'paths'
  paths: string[]
  /** The card holds fewer results than `total`. */
  truncated: boolean
  /** Every result the search found. */
  total: number
  /** The search did not read everything (it timed out, or some paths were unreadable): more results may exist. */
  incomplete: boolean
  /** Present when a content index was consulted. */
  index?: SearchIndexUse
}

/** The view `@dsh/core` names `SearchResultView`, declared here so a browser page needs nothing of Node. */
export type SearchResultView = SearchMatchesResultView | SearchPathsResultView

/**
 * The search view in `input`: a `SearchResultView`, or the object `dsh grep … --format json` prints
 * (whose `view` holds it); undefined for anything else, so the card shows it has nothing rather than
 * throwing on a value from a page script.
 */
export function toSearchView(input: unknown): SearchResultView | undefined {
  const value = isRecord(input) && input.card === undefined && isRecord(input.view) ? input.view : input
  if (!isRecord(value) || value.card !== 'search' || typeof value.truncated !== 'boolean' || !isCount(value.total)) return undefined
  if (value.incomplete !== undefined && typeof value.incomplete !== 'boolean') return undefined
  // A view printed before `incomplete` existed reads as complete, as it was shown then.
  const view = value.incomplete === undefined ? { ...value, incomplete: false } : value
  if (view.shape === 'matches' && Array.isArray(view.files) && view.files.every(isFileMatches)) {
    return view as unknown as SearchMatchesResultView
  }
  if (view.shape === 'paths' && Array.isArray(view.paths) && view.paths.every((p) => typeof p === 'string')) {
    return view as unknown as SearchPathsResultView
  }
  return undefined
}

/** How many results a view holds: matches for grep's card, paths for glob's. */
export function shownCount(view: SearchResultView): number {
  return view.shape === 'paths' ? view.paths.length : view.files.reduce((sum, file) => sum + file.matches.length, 0)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

function isFileMatches(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.path === 'string' &&
    Array.isArray(value.matches) &&
    value.matches.every((m) => isRecord(m) && typeof m.lineNumber === 'number' && typeof m.line === 'string')
  )
}
