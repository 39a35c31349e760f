/**
 * Presentation views: what a UI renders for a tool call before it runs and for its result after.
 * Views carry structure only; the model-facing text stays on the result.
 */
import { z } from 'zod'

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
// A whole number, not a safe integer: a line past 2^53 is shown as `Number` reads its digits.
export const SearchLineMatch = z.object({ lineNumber: z.number().min(1).multipleOf(1), line: z.string() })
/** One matched line of a search card. */
export type SearchLineMatch = z.output<typeof SearchLineMatch>

/** One file's matches in a search card, in line order. */
export const SearchFileMatches = z.object({ path: z.string(), matches: z.array(SearchLineMatch) })
/** One file's matches in a search card. */
export type SearchFileMatches = z.output<typeof SearchFileMatches>

/**
 * How a content index took part in a search (docs/design.md#an-index-chooses-files-rg-decides-matches):
 * it chose which files rg read, or it was consulted and the search read every file, and why. The
 * answer is the same either way; this says what it cost.
 */
export const SearchIndexUse = z.discriminatedUnion('used', [
  z.object({
    used: z.literal(true),
    /** Files the index holds under the search path. */
    indexedFiles: z.number().int().min(0),
    /** grep: of them, those rg read because their trigrams allow a match; glob: those whose modification times it gave. */
    candidates: z.number().int().min(0),
    /** Files and directories changed since the index was built, read whatever the index says. */
    changed: z.number().int().min(0),
    /**
     * grep: of the candidates, those named to rg as paths rather than walked to, when a warm process
     * held rg's own list of its walk (docs/design.md#named-candidates); absent when none was.
     */
    named: z.number().int().min(1).exactOptional(),
  }),
  z.object({ used: z.literal(false), reason: z.string(), detail: z.string() }),
])
/** How a content index took part in a search. */
export type SearchIndexUse = z.output<typeof SearchIndexUse>

/** What both search shapes carry: whether the card shows less than the search found, and how much it found. */
const searchResultBase = {
  card: z.literal('search'),
  /** The card holds fewer results than `total`: a UI says so and never presents it as complete. */
  truncated: z.boolean(),
  /** Every result the search found, before any cap. */
  total: z.number().int().min(0),
  /**
   * The search did not read everything it was asked to (it stopped at its time limit, or rg could not
   * read some paths), so results beyond `total` may exist: a UI says so.
   */
  incomplete: z.boolean(),
  /** Present when a content index was consulted: whether it chose the files rg read. */
  index: SearchIndexUse.exactOptional(),
}

/**
 * grep's card: matches grouped by file, files in the page's order (docs/design.md#the-search-card).
 * The one definition of its shape: the type, the JSON Schema a host declares (MCP's `outputSchema`)
 * and the narrowing of a replayed meta all derive from it.
 */
export const SearchMatchesResultView = z.object({ ...searchResultBase, shape: z.literal('matches'), files: z.array(SearchFileMatches) })
/** grep's card. */
export type SearchMatchesResultView = z.output<typeof SearchMatchesResultView>

/** glob's card: the page's paths, newest first; the one definition of its shape, as grep's. */
export const SearchPathsResultView = z.object({ ...searchResultBase, shape: z.literal('paths'), paths: z.array(z.string()) })
/** glob's card. */
export type SearchPathsResultView = z.output<typeof SearchPathsResultView>

/**
 * A search result, discriminated by `shape` (`kind` already names a call's icon category). It carries
 * no result text: a UI without a search card renders the result's content, as for a generic card.
 */
export const SearchResultView = z.discriminatedUnion('shape', [SearchMatchesResultView, SearchPathsResultView])
/** A search result view. */
export type SearchResultView = z.output<typeof SearchResultView>

/** A view's JSON Schema, for a host that declares one (MCP's `outputSchema`): the schema less its dialect tag. */
export function viewJsonSchema(view: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(view) as Record<string, unknown>
  return json
}

/**
 * What a UI shows for a completed call, discriminated by `card`; a consumer without an arm for a
 * richer card falls back to the text.
 */
export type ToolResultView = GenericResultView | SearchResultView
