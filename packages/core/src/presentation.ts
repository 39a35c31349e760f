/**
 * Presentation views: what a UI renders for a tool call before it runs and for its result after.
 * Views carry structure only; the model-facing text stays on the result.
 */

/** The icon category of a call. `kind` means this and nothing else. */
export type ToolCallKind = 'search' | 'read' | 'edit' | 'execute' | 'other'

/** A call card with a title and an optional one-line detail (the pattern, the path). */
export interface GenericCallView {
  card: 'generic'
  kind: ToolCallKind
  title: string
  detail?: string
}

/** What a UI shows while a call is pending. */
export type ToolCallView = GenericCallView

/** A completed call with no richer card: the UI renders the result's text. */
export interface GenericResultView {
  card: 'generic'
  isError: boolean
}

/** One matched line of a search card: its 1-based number and the line as the model's page showed it. */
export interface SearchLineMatch {
  lineNumber: number
  line: string
}

/** One file's matches in a search card, in line order. */
export interface SearchFileMatches {
  path: string
  matches: SearchLineMatch[]
}

/** What both search shapes carry: whether the card shows less than the search found, and how much it found. */
interface SearchResultBase {
  card: 'search'
  /** The card holds fewer results than `total`: a UI says so and never presents it as complete. */
  truncated: boolean
  /** Every result the search found, before any cap. */
  total: number
  /**
   * The search did not read everything it was asked to (it stopped at its time limit, or rg could not
   * read some paths), so results beyond `total` may exist: a UI says so.
   */
  incomplete: boolean
}

/** grep's card: matches grouped by file, files in the page's order (docs/design.md#the-search-card). */
export interface SearchMatchesResultView extends SearchResultBase {
  shape: 'matches'
  files: SearchFileMatches[]
}

/** glob's card: the page's paths, newest first. */
export interface SearchPathsResultView extends SearchResultBase {
  shape: 'paths'
  paths: string[]
}

/**
 * A search result, discriminated by `shape` (`kind` already names a call's icon category). It carries
 * no result text: a UI without a search card renders the result's content, as for a generic card.
 */
export type SearchResultView = SearchMatchesResultView | SearchPathsResultView

/**
 * What a UI shows for a completed call, discriminated by `card`; a consumer without an arm for a
 * richer card falls back to the text.
 */
export type ToolResultView = GenericResultView | SearchResultView
