// The search card (docs/design.md#the-search-card): the retained page projected into presentation meta, and read back as a view.
import type { JsonValue, SearchMatchesResultView, SearchPathsResultView, SearchResultView, ToolResult } from '@dsh/core'
import { z } from 'zod'

// Type aliases, not the view's interfaces: only an alias is assignable to JsonValue's index signature.
/** One matched line in grep's meta. */
export type SearchMetaLine = { lineNumber: number; line: string }
/** One file's matches in grep's meta. */
export type SearchMetaFile = { path: string; matches: SearchMetaLine[] }

/** grep's meta: the view less its `card` tag. */
export type SearchMatchesMeta = { shape: 'matches'; files: SearchMetaFile[]; truncated: boolean; total: number; incomplete: boolean }
/** glob's meta: the view less its `card` tag. */
export type SearchPathsMeta = { shape: 'paths'; paths: string[]; truncated: boolean; total: number; incomplete: boolean }
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

/**
 * The view in a result's meta, or undefined when the meta is absent or malformed in any way (a
 * hand-edited log), so a UI falls back to the text. Zero results are a valid, empty card. A meta
 * without `incomplete` (logged before it existed) reads as complete, as its card showed it.
 */
export function searchViewFromMeta(meta: unknown): SearchResultView | undefined {
  if (!isRecord(meta) || typeof meta.truncated !== 'boolean' || !isCount(meta.total)) return undefined
  if (meta.incomplete !== undefined && typeof meta.incomplete !== 'boolean') return undefined
  const { truncated, total } = meta
  const incomplete = meta.incomplete === true
  if (meta.shape === 'matches') {
    const files = meta.files
    if (!Array.isArray(files) || !files.every(isFileMatches)) return undefined
    return {
      card: 'search',
      shape: 'matches',
      files: files.map((file) => ({
        path: file.path,
        matches: file.matches.map(({ lineNumber, line }) => ({ lineNumber, line })),
      })),
      truncated,
      total,
      incomplete,
    }
  }
  if (meta.shape === 'paths') {
    const paths = meta.paths
    if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string')) return undefined
    return { card: 'search', shape: 'paths', paths: [...paths], truncated, total, incomplete }
  }
  return undefined
}

const viewBase = { card: z.literal('search'), truncated: z.boolean(), total: z.number().int().min(0), incomplete: z.boolean() }

/** The JSON Schema of grep's view, for a host that declares one (MCP's `outputSchema`). */
export const MATCHES_VIEW_SCHEMA = viewSchema(
  z.object({
    ...viewBase,
    shape: z.literal('matches'),
    files: z.array(z.object({ path: z.string(), matches: z.array(z.object({ lineNumber: z.number().int().min(1), line: z.string() })) })),
  }),
)

/** The JSON Schema of glob's view, for a host that declares one (MCP's `outputSchema`). */
export const PATHS_VIEW_SCHEMA = viewSchema(z.object({ ...viewBase, shape: z.literal('paths'), paths: z.array(z.string()) }))

function viewSchema(schema: z.ZodObject): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema) as Record<string, unknown>
  return json
}

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

// Not a safe integer necessarily: a line number past 2^53 is shown as `Number` reads its digits.
function isLineNumber(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0
}

function isFileMatches(value: unknown): value is SearchMetaFile {
  return (
    isRecord(value) &&
    typeof value.path === 'string' &&
    Array.isArray(value.matches) &&
    value.matches.every((match) => isRecord(match) && isLineNumber(match.lineNumber) && typeof match.line === 'string')
  )
}
