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

/**
 * What a UI shows for a completed call, discriminated by `card`. Richer cards (the search card,
 * `card: 'search'`) join this union; a consumer without an arm for one falls back to the text.
 */
export type ToolResultView = GenericResultView
