// Asks the content index which files rg may skip (docs/design.md#an-index-chooses-files-rg-decides-matches), and which times glob need not read (docs/design.md#glob-reads-times-from-the-index).
import path from 'node:path'
import type { SearchIndex, SearchIndexUse, ToolExecContext } from '@dsh/core'
import type { ListingContext, SearchContext } from './context.js'
import type { TimeOf } from './glob/stamps.js'
import type { QuietMark } from './link-scan-memory.js'
import type { LinkPlan } from './links.js'

/** What a search adds to its rg command for the index, and how the index took part. */
export interface IndexedSearch {
  /** `--ignore-file=…` when the index chose the files; none otherwise. */
  flags: string[]
  /** Undefined when no index took part (`index: "off"`, no index service, or none covers the tree). */
  use?: SearchIndexUse
  /** Deletes what the index wrote for this search; call once rg is done. */
  release: () => Promise<void>
}

const NOTHING: IndexedSearch = { flags: [], release: async () => {} }

/** The index a search consults: none with `index: "off"` or without the service. */
export function indexOf(ctx: SearchContext): SearchIndex | undefined {
  return ctx.config.index === 'auto' ? ctx.searchIndex?.() : undefined
}

/** The absolute directory a search of `target` reads; undefined when a relative path has no working directory to place it. */
function searchDir(exec: ToolExecContext, target: string): string | undefined {
  const cwd = exec.agent?.session.header.cwd
  return cwd === undefined && !path.isAbsolute(target) ? undefined : path.resolve(cwd ?? '/', target)
}

/**
 * The index's quiet mark of `target` for the link scan (docs/design.md#a-quiet-tree-needs-no-link-revalidation),
 * when the search consults an index that can give one.
 */
export function quietMarkOf(ctx: SearchContext, exec: ToolExecContext, target: string): QuietMark | undefined {
  const index = indexOf(ctx)
  const dir = searchDir(exec, target)
  if (index?.unchangedMark === undefined || dir === undefined) return undefined
  return () => index.unchangedMark!({ dir, signal: exec.signal })
}

/**
 * Consults the index for a search of `target` (as the model gave it) with `pattern`. The index only
 * adds an ignore file of the lowest precedence, so rg, with the command it would run anyway, decides
 * every match; what rg reaches through a link it follows is read whole, since the index holds no
 * path through a link.
 */
export async function planIndexedSearch(
  ctx: SearchContext,
  exec: ToolExecContext,
  {
    target,
    pattern,
    caseInsensitive,
    multiline,
    links,
  }: { target: string; pattern: string; caseInsensitive: boolean; multiline: boolean; links: LinkPlan },
): Promise<IndexedSearch> {
  const index = indexOf(ctx)
  const dir = searchDir(exec, target)
  // Without a working directory a relative path cannot be placed, so no index can be found for it.
  if (index === undefined || dir === undefined) return NOTHING
  const answer = await index.plan({
    dir,
    pattern,
    caseInsensitive,
    multiline,
    followedLinks: links.followed,
    signal: exec.signal,
  })
  // No index for this tree: nothing took part, so the result says nothing (as with `index: "off"`).
  if (answer.kind === 'full-scan' && answer.reason === 'no-index') return NOTHING
  if (answer.kind === 'full-scan') return { ...NOTHING, use: { used: false, reason: answer.reason, detail: answer.detail } }
  return {
    flags: answer.ignoreFile === undefined ? [] : [`--ignore-file=${answer.ignoreFile}`],
    use: { used: true, indexedFiles: answer.indexedFiles, candidates: answer.candidates, changed: answer.changed },
    release: () => answer.release(),
  }
}

/** What glob takes from the index: the times of the files it lists, and how the index took part. */
export interface IndexedListing {
  /** Set when the index gives the times; the script then lists without the mtime helper. */
  timeOf?: TimeOf
  /** How the index took part, once the listing is done and `recorded` times came from it; undefined when none did. */
  use: (recorded: number) => SearchIndexUse | undefined
}

const NO_TIMES: IndexedListing = { use: () => undefined }

/**
 * Consults the index for a listing of `target` (as the model gave it): the times it recorded stand in
 * for the mtime helper's, so they must read as GNU find's `%T@` does (the `find` and `finds` helpers;
 * GNU stat prints a time before 1970 otherwise, and the others whole seconds). A listing that follows
 * links reads every time: the index holds no path through a link, so it would read each one here.
 */
export async function planIndexedListing(
  ctx: ListingContext,
  exec: ToolExecContext,
  { target, links }: { target: string; links: LinkPlan },
): Promise<IndexedListing> {
  const index = indexOf(ctx)
  const dir = searchDir(exec, target)
  const { helper } = ctx.lister
  if (index?.times === undefined || dir === undefined || links.followed.length > 0 || (helper !== 'find' && helper !== 'finds'))
    return NO_TIMES
  const answer = await index.times({ dir, signal: exec.signal })
  if (answer.kind === 'full-scan') {
    if (answer.reason === 'no-index') return NO_TIMES
    return { use: () => ({ used: false, reason: answer.reason, detail: answer.detail }) }
  }
  return {
    timeOf: answer.timeOf,
    use: (recorded) => ({ used: true, indexedFiles: answer.indexedFiles, candidates: recorded, changed: answer.changed }),
  }
}
