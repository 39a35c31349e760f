// The search card (docs/design.md#the-search-card): the retained page projected into presentation meta, and read back as a view.
import {
  SearchMatchesResultView,
  SearchPathsResultView,
  viewJsonSchema,
  type JsonValue,
  type SearchResultView,
  type ToolResult,
} from '@dsh/core'
import { z } from 'zod'

/** grep's meta: the view less its `card` tag. */
export type SearchMatchesMeta = Omit<SearchMatchesResultView, 'card'>
/** glob's meta: the view less its `card` tag. */
export type SearchPathsMeta = Omit<SearchPathsResultView, 'card'>
/** What grep and glob return as `presentationMeta`. */
export type SearchMeta = SearchMatchesMeta | SearchPathsMeta

/**
 * Drops trailing file groups or paths until the serialized meta fits `maxBytes`, and marks it truncated
 * when it dropped any. The first item stays however large: a bounded card never hides a real result.
 */
export function capMetaBytes<M extends SearchMeta>(meta: M, maxBytes: number): M {
  if (jsonBytes(meta) <= maxBytes) return meta
  const items: readonly JsonValue[] = meta.shape === 'matches' ? meta.files : meta.paths
  // Measured with `truncated: false`, the longer of the two, so the result fits whichever it ends with.
  let used = jsonBytes({ ...meta, truncated: false, [itemsKey(meta)]: [] })
  let kept = 0
  for (const item of items) {
    const adds = jsonBytes(item) + (kept > 0 ? 1 : 0)
    if (used + adds > maxBytes && kept > 0) break
    used += adds
    kept += 1
  }
  return { ...meta, [itemsKey(meta)]: items.slice(0, kept), truncated: meta.truncated || kept < items.length }
}

// A replayed meta, narrowed by the views' own schemas: unknown fields are dropped, and a meta without
// `incomplete` (logged before it existed) reads as complete, as its card showed it.
const replayed = { incomplete: z.boolean().default(false) }
const REPLAYED_META = z.discriminatedUnion('shape', [
  SearchMatchesResultView.omit({ card: true }).extend(replayed),
  SearchPathsResultView.omit({ card: true }).extend(replayed),
])

/**
 * The view in a result's meta, or undefined when the meta is absent or malformed in any way (a
 * hand-edited log), so a UI falls back to the text. Zero results are a valid, empty card.
 */
export function searchViewFromMeta(meta: unknown): SearchResultView | undefined {
  const parsed = REPLAYED_META.safeParse(meta)
  return parsed.success ? { card: 'search', ...parsed.data } : undefined
}

/** The JSON Schema of grep's view, for a host that declares one (MCP's `outputSchema`). */
export const MATCHES_VIEW_SCHEMA = viewJsonSchema(SearchMatchesResultView)

/** The JSON Schema of glob's view, for a host that declares one (MCP's `outputSchema`). */
export const PATHS_VIEW_SCHEMA = viewJsonSchema(SearchPathsResultView)

/** grep's result view: its matches card, or undefined for a failure, absent meta (a nested call) or any other shape. */
export function presentGrepResult(result: ToolResult): SearchMatchesResultView | undefined {
  const view = result.isError ? undefined : searchViewFromMeta(result.meta)
  return view?.shape === 'matches' ? view : undefined
}

/** glob's result view: its paths card, or undefined for a failure, absent meta (a nested call) or any other shape. */
export function presentGlobResult(result: ToolResult): SearchPathsResultView | undefined {
  const view = result.isError ? undefined : searchViewFromMeta(result.meta)
  return view?.shape === 'paths' ? view : undefined
}

function itemsKey(meta: SearchMeta): 'files' | 'paths' {
  return meta.shape === 'matches' ? 'files' : 'paths'
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}
