// Asks the content index which files rg may skip (docs/design.md#an-index-chooses-files-rg-decides-matches), and which times glob need not read (docs/design.md#glob-reads-times-from-the-index).
import path from 'node:path'
import { isUtf8 } from 'node:buffer'
import type { SearchIndex, SearchIndexUse, ToolExecContext } from '@dsh/core'
import type { ListingContext, SearchContext } from './context.js'
import type { TimeOf } from './glob/stamps.js'
import type { QuietMark } from './link-scan-memory.js'
import type { IndexRoute } from './grep/command.js'
import type { LinkPlan } from './links.js'
import { NESTED_REPOSITORIES_MAX, nestedStamps, outsideStamps, type ListTaking, type StampingFs, type Walked } from './rg-file-lists.js'

/** What a search gives its script for the index, and how the index took part. */
export interface IndexedSearch {
  /** The files the index chose, named and walked; none for a full scan. */
  route: IndexRoute
  /** Undefined when no index took part (`index: "off"`, no index service, or none covers the tree). */
  use?: SearchIndexUse
  /** Deletes what the index wrote for this search; call once rg is done. */
  release: () => Promise<void>
}

const NOTHING: IndexedSearch = { route: {}, release: async () => {} }

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
 * Consults the index for a search of `target` (as the model gave it) with `pattern`. The index adds
 * an ignore file of the lowest precedence, and names to rg the candidates its walk would reach
 * (docs/design.md#named-candidates), so rg, with the flags it would run with anyway, decides every
 * match; what rg reaches through a link it follows is read whole, since the index holds no path
 * through a link. `fileList` is the script that lists what the search's walk reaches: its list, kept
 * while the index's walk mark holds, says which candidates may be named.
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
    fileList,
  }: { target: string; pattern: string; caseInsensitive: boolean; multiline: boolean; links: LinkPlan; fileList: string },
): Promise<IndexedSearch> {
  const index = indexOf(ctx)
  const dir = searchDir(exec, target)
  // Without a working directory a relative path cannot be placed, so no index can be found for it.
  if (index === undefined || dir === undefined) return NOTHING
  const fs = ctx.fs?.()
  // Naming needs the index's walk mark and the seam's stamps (docs/design.md#named-candidates).
  const lists = index.walkMark === undefined || fs?.stampMany === undefined ? undefined : ctx.rgFileLists?.()
  const key = `${dir}\0${fileList}`
  let walked: Walked | undefined
  // The mark and the stamps cost a few milliseconds: asked only when a list is kept to check them against.
  if (lists?.holds(key) === true) {
    const mark = await index.walkMark!({ dir, signal: exec.signal })
    if (mark !== undefined) walked = lists.walked(key, mark, await outsideStamps(dir, fs as StampingFs, lists.nestedOf(key)))
  }
  const answer = await index.plan({
    dir,
    pattern,
    caseInsensitive,
    multiline,
    followedLinks: links.followed,
    ...(walked === undefined ? {} : { walked }),
    signal: exec.signal,
  })
  // No index for this tree: nothing took part, so the result says nothing (as with `index: "off"`).
  if (answer.kind === 'full-scan' && answer.reason === 'no-index') return NOTHING
  if (answer.kind === 'full-scan') return { ...NOTHING, use: { used: false, reason: answer.reason, detail: answer.detail } }
  return {
    route: {
      ...(answer.ignoreFile === undefined ? {} : { ignoreFile: answer.ignoreFile }),
      ...(answer.namedFile === undefined ? {} : { namedFile: answer.namedFile }),
    },
    use: {
      used: true,
      indexedFiles: answer.indexedFiles,
      candidates: answer.candidates,
      changed: answer.changed,
      ...(answer.named > 0 ? { named: answer.named } : {}),
    },
    release: async () => {
      await answer.release()
      // Taken after the search, so its walk does not slow this one: the next search may name.
      if (lists !== undefined && walked === undefined)
        void lists.take(key, listTaking(ctx, exec, { index, fs: fs as StampingFs, dir, fileList }))
    },
  }
}

/** How the list of a search's walk is taken: the index's walk mark, the stamps outside the tree, and the list script run through the seam. */
function listTaking(
  ctx: SearchContext,
  exec: ToolExecContext,
  { index, fs, dir, fileList }: { index: SearchIndex; fs: StampingFs; dir: string; fileList: string },
): ListTaking {
  const cwd = exec.agent?.session.header.cwd
  return {
    mark: (signal) => index.walkMark!({ dir, signal }),
    stamps: () => outsideStamps(dir, fs),
    nested: (dirs, since) => nestedRepositories(dir, dirs, since, fs),
    walk: async (signal) => {
      const chunks: Buffer[] = []
      const spec = await ctx.bash.resolve({
        command: fileList,
        ...(cwd === undefined ? {} : { workdir: cwd }),
        timeoutMs: ctx.config.timeoutMs,
        stdoutMaxBytes: Number.MAX_SAFE_INTEGER,
        stderrMaxBytes: 4_096,
        signal,
        stdoutSink: (chunk) => chunks.push(Buffer.from(chunk)),
      })
      const run = await ctx.bash.run(spec)
      const output = Buffer.concat(chunks)
      // A directory searched (`D`), every entry listed: a file target, a missing xargs or an unreadable directory keeps none.
      if (run.stop !== 'exit' || run.exitCode !== 0 || output.subarray(0, 2).toString('latin1') !== 'D\0') return undefined
      return output.subarray(2)
    },
  }
}

/**
 * The directories of `dirs` (from `dir`) that hold a repository's `.git`, and the stamps of what they
 * exclude, none changed since `since`; undefined when one did, when a name cannot be given to the file
 * system as it is (bytes that are not UTF-8), or when there are more than a search should stamp.
 */
async function nestedRepositories(
  dir: string,
  dirs: readonly string[],
  since: bigint,
  fs: StampingFs,
): Promise<{ dirs: string[]; stamps: string } | undefined> {
  const names = dirs.map((local) => Buffer.from(local, 'latin1'))
  if (!names.every((name) => isUtf8(name))) return undefined
  const utf8 = names.map((name) => name.toString('utf8'))
  const stamps = await fs.stampMany(
    utf8.map((local) => path.join(dir, local, '.git')),
    { follow: false },
  )
  const nested = utf8.filter((_, i) => stamps[i]!.kind !== 'missing')
  if (nested.length > NESTED_REPOSITORIES_MAX) return undefined
  if (nested.length === 0) return { dirs: nested, stamps: '' }
  const { text, changed } = await nestedStamps(dir, nested, fs)
  return changed >= since ? undefined : { dirs: nested, stamps: text }
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
