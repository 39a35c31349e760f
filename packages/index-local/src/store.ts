// The local SearchIndex: find the index that covers a search, prove which files cannot match, hand rg an ignore file, give glob the times it recorded, and in a warm process update the index from its watcher.
import { isUtf8 } from 'node:buffer'
import { randomBytes } from 'node:crypto'
import { statfsSync } from 'node:fs'
import { lstat, realpath, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  reportsEveryChange,
  type BashExecutor,
  type IndexAnswer,
  type IndexFallback,
  type IndexQuery,
  type IndexTimesAnswer,
  type SearchIndex,
} from '@dsh/core'
import { resolveIndexOptions, type LocalIndexOptions, type LocalIndexSettings } from './config.js'
import { IndexError } from './errors.js'
import {
  FILE_ALWAYS,
  FILE_INDEXED,
  findKey,
  loadIndexFile,
  openIndexFile,
  readPostingList,
  readPostings,
  UNREAD_DIR,
  type IndexData,
} from './format.js'
import { CHANGE_WALK_LIMITS, changedSince, type Changed } from './freshness.js'
import { ancestors, assertPrivate, INDEX_FILE, treeDir, UPDATE_FILE } from './location.js'
import { clockMark, SKIPPED_DIRS } from './build.js'
import { RecordedTimes } from './recorded-times.js'
import { patternQuery, type TrigramQuery } from './regex-query.js'
import { POSITION_BITS, trigramsAt } from './trigrams.js'
import { keyChanges, pathOf, type IndexReport, type KeyedChanges } from './update.js'
import { ownFiles, splitWalk, WALK_PARTS, type WalkPart } from './walk-split.js'
import { inotifyQueueLimit, TreeWatcher, type WatcherOptions } from './watcher.js'

// How long a search waits for its sync marker's event (it arrives in well under a millisecond when
// the process is idle); a search that waits longer walks the tree instead.
const SYNC_TIMEOUT_MS = 5_000
// Names whose change can change what rg's walk reaches among files that did not change: its ignore
// files, and a repository's directory (which makes the .gitignore files below it count).
const WALK_INPUTS = new Set<string>(['.gitignore', '.ignore', '.rgignore', ...SKIPPED_DIRS])

/** A watcher per index file, for the whole process: the warm server builds a harness per call. */
const WATCHERS = new Map<string, { stamp: string; watcher: Promise<TreeWatcher>; dead: boolean; serial: number }>()
let watchersStarted = 0
/** The refresh in flight (docs/design.md#a-warm-process-updates-its-index): one at a time, for the whole process. */
let refreshing: Promise<void> = Promise.resolve()

/**
 * Decoded indexes, for the whole process as the watchers are: the warm server builds a harness per
 * call, and decoding an index (reading it, checking its SHA-256) costs about a second per GiB. The
 * most recently used few are kept, each with its tables (paths, keys) in memory and its file open.
 */
const LOADED = new Map<string, Loaded>()
const LOADED_MAX = 2
/** Decodings in flight, by stamp and file: searches that find the same file at once read it once. */
const LOADING = new Map<string, Promise<Loaded>>()

/**
 * The decoding of `file` as `stamp` found it, shared with any search already reading it. Once read, it
 * is the one kept for the file, and the decoding kept before it (an older stamp) is closed.
 */
export function loadOnce(file: string, stamp: string): Promise<Loaded> {
  const key = `${stamp}\0${file}`
  let loading = LOADING.get(key)
  if (loading === undefined) {
    loading = loadIndexFile(file)
      .then((data) => {
        const fresh = load(stamp, data)
        const kept = LOADED.get(file)
        if (kept !== undefined) {
          kept.data.close()
          kept.update?.data.close()
        }
        LOADED.set(file, fresh)
        return fresh
      })
      .finally(() => LOADING.delete(key))
    LOADING.set(key, loading)
  }
  return loading
}

/**
 * Closes every watcher this process keeps (tests; a host that stops serving), each once it has
 * started: the promise settles when no watch is left.
 */
export async function closeIndexWatchers(): Promise<void> {
  const watchers = [...WATCHERS.values()].map(({ watcher }) => watcher)
  WATCHERS.clear()
  for (const watcher of await Promise.all(watchers)) watcher.close()
}

/** What `createLocalSearchIndex` takes. */
export interface LocalSearchIndexOptions extends LocalIndexOptions {
  /** Runs the change walk (`find`): the only process the index starts. */
  bash: BashExecutor
  /** The statfs type of a path (tests stand in for a network mount). @default statfs */
  statfsType?: (path: string) => number
}

/** A plan, saying for candidates how the changes since the build were learned. */
export type LocalIndexAnswer = IndexAnswer | (Extract<IndexAnswer, { kind: 'candidates' }> & { changesFrom: 'watcher' | 'walk' })

/**
 * What a refresh did: wrote the update (what `dsh index` reports of one) and, when nothing raced it,
 * handed the watcher on; or why not.
 */
export type RefreshReport =
  | (Omit<Extract<IndexReport, { kind: 'update' }>, 'kind' | 'changesFrom'> & {
      kind: 'updated'
      /** False when another writer or a search came between: the next search starts a watcher (and walks). */
      handedOn: boolean
    })
  | { kind: 'skipped'; why: string }

/** The local index, with its settings for `dsh index`. */
export interface LocalSearchIndex extends SearchIndex {
  readonly settings: LocalIndexSettings
  plan(query: IndexQuery): Promise<LocalIndexAnswer>
  unchangedMark(query: { dir: string; signal: AbortSignal }): Promise<string | undefined>
  walkMark(query: { dir: string; signal: AbortSignal }): Promise<string | undefined>
  prepare(query: { dir: string; signal: AbortSignal }): Promise<void>
  /**
   * Updates the index that covers `dir` from this process's watcher (`watch`), without a walk. An
   * aborted `signal` stops it before the update's rename: skipped, the index as it was.
   */
  refresh(dir: string, options?: { signal?: AbortSignal }): Promise<RefreshReport>
  /**
   * Whether this process keeps a watcher, seeded and of the index as it is now, of the index of the
   * tree at `root` (a real path; not of a tree that holds it): what `refresh(root)` updates from. A
   * warm server asks before it takes `dsh index` (docs/design.md#dsh-index-in-the-warm-server).
   */
  watches(root: string): Promise<boolean>
  times(query: { dir: string; signal: AbortSignal }): Promise<IndexTimesAnswer>
}

/** What a watcher says before a search: the changes, too many of them, or nothing it can vouch for. */
type Watched =
  | { kind: 'changes'; walked: readonly Changed[]; named: ReadonlySet<string>; serial: number }
  | { kind: 'too-many' }
  | { kind: 'walk' }
  | { kind: 'failed'; why: string }

/** An update read beside its index (docs/design.md#an-update-keys-what-changed): what changed since the build, keyed. */
interface Update {
  data: IndexData & { close(): void }
  /** Its files' paths: the update decides whether each may match, whatever the index said. */
  keyed: Set<string>
  /** Its files every search reads, ascending. */
  always: Uint32Array
}

/** A decoded index kept while its file stays the same (inode, size, mtime): a warm process decodes it once. */
interface Loaded {
  stamp: string
  data: IndexData & { close(): void }
  /** The files every search reads, ascending. */
  always: Uint32Array
  /** How many files lie under a search directory's prefix, as searches ask. */
  under: Map<string, number>
  /** How the change walk of a search directory's prefix is split, as searches ask. */
  splits: Map<string, WalkPart[] | undefined>
  /** The update file's stamp as last read ('' none), and the update when it is this index's. */
  updateStamp: string
  update: Update | undefined
  /** The clock mark changes are read since: the update's when there is one, else the build's. */
  mark: bigint
  /** Each directory's inode, the update's over the index's. */
  dirs: ReadonlyMap<string, number>
  /** The directories neither could read (no watch, no entries): every search reads each whole. */
  unread: string[]
}

/**
 * The index that covers a search, and what it held when found: the update, its mark and directories
 * stay the ones the search began with even when another search reads a newer update meanwhile.
 */
interface Found {
  root: string
  data: IndexData
  loaded: Loaded
  file: string
  /** The index file's stamp, and its update's when there is one: a watcher serves searches of one stamp. */
  stamp: string
  mark: bigint
  update: Update | undefined
  dirs: ReadonlyMap<string, number>
  unread: readonly string[]
}

function alwaysRead(data: IndexData): Uint32Array {
  const always: number[] = []
  for (let id = 0; id < data.fileFlags.length; id++) if (data.fileFlags[id] === FILE_ALWAYS) always.push(id)
  return Uint32Array.from(always)
}

function load(stamp: string, data: IndexData & { close(): void }): Loaded {
  const loaded = { stamp, data, always: alwaysRead(data), under: new Map([['', data.files.length]]), splits: new Map() }
  return withUpdate({ ...loaded, updateStamp: '', update: undefined, mark: 0n, dirs: data.dirs, unread: [] }, '', undefined)
}

/** Sets (or clears) the update read beside an index, and what it changes: the mark, the directories. */
function withUpdate(loaded: Loaded, updateStamp: string, data: (IndexData & { close(): void }) | undefined): Loaded {
  loaded.update?.data.close()
  const keyed = new Set<string>()
  for (let id = 0; id < (data?.files.length ?? 0); id++) keyed.add(data!.files.at(id))
  loaded.updateStamp = updateStamp
  loaded.update = data === undefined ? undefined : { data, keyed, always: alwaysRead(data) }
  loaded.mark = BigInt((data ?? loaded.data).header.builtAtNs)
  loaded.dirs = data === undefined ? loaded.data.dirs : new Map([...loaded.data.dirs, ...data.dirs])
  loaded.unread = [...loaded.dirs].filter(([, inode]) => inode === UNREAD_DIR).map(([rel]) => rel)
  return loaded
}

/**
 * Reads the update beside an index when it changed since last read: one whose base is not this index
 * (a rebuild replaced it) or that is refused (damaged, foreign) is not read, and the changes since
 * the build are read instead, as without one.
 */
async function readUpdate(loaded: Loaded, root: string, file: string): Promise<void> {
  const info = await stat(file, { bigint: true }).catch(() => undefined)
  // Its ctime: a chmod that makes a refused update private changes it too.
  const stamp = info === undefined ? '' : `${info.ino}:${info.size}:${info.ctimeNs}`
  if (stamp === loaded.updateStamp) return
  let data: (IndexData & { close(): void }) | undefined
  try {
    if (info !== undefined) {
      await assertPrivate(file)
      data = openIndexFile(file)
    }
  } catch {
    data = undefined
  }
  const base = data?.header.base
  if (
    data !== undefined &&
    (data.header.root !== root || base?.checksum !== loaded.data.checksum || base.builtAtNs !== loaded.data.header.builtAtNs)
  ) {
    data.close()
    data = undefined
  }
  withUpdate(loaded, stamp, data)
}

/** The files under `prefix` (`''`, or a directory's path from the root with a slash after it). */
function filesUnder(loaded: Loaded, prefix: string): number {
  let count = loaded.under.get(prefix)
  if (count === undefined) {
    count = 0
    for (let id = 0; id < loaded.data.files.length; id++) if (loaded.data.files.startsWith(id, prefix)) count++
    loaded.under.set(prefix, count)
  }
  return count
}

/** The change walk of `prefix` split into parts, from the index's directories (docs/design.md#changes-since-the-build-are-read). */
function splitFor(loaded: Loaded, prefix: string): WalkPart[] | undefined {
  if (!loaded.splits.has(prefix)) loaded.splits.set(prefix, splitWalk(ownFiles(loaded.data, prefix), WALK_PARTS))
  return loaded.splits.get(prefix)
}

function fullScan(reason: IndexFallback, detail: string): Extract<IndexAnswer, { kind: 'full-scan' }> {
  return { kind: 'full-scan', reason, detail }
}

function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!)
    else if (i >= a.length || b[j]! < a[i]!) out.push(b[j++]!)
    else {
      out.push(a[i++]!)
      j++
    }
  }
  return Uint32Array.from(out)
}

/** What reading a query's postings costs, roughly: a trigram's list bytes; a nested query, all its lists. */
function cost(index: IndexData, query: TrigramQuery): number {
  if (query.op === 'trigram') {
    const slot = findKey(index.keys, query.key)
    return slot < 0 ? 0 : index.starts[slot + 1]! - index.starts[slot]!
  }
  // An and/or: `all` is simplified out of both, and a pattern that is all of it falls back before this.
  return (query as Extract<TrigramQuery, { of: unknown }>).of.reduce((n, q) => n + cost(index, q), 0)
}

/**
 * The ids of the files whose trigrams meet the query, or a few more (`all` never reaches here). An AND
 * reads its cheapest part first and each next list only as far as the ids still standing, stopping when
 * none do. A list that holds most files is dense ([the index file](docs/design.md#the-index-file)), read
 * by looking up the ids still standing, so none is worth skipping (in gaps, the four longest lists of
 * `loadTree7001` on the 500,000-file tree cost 4–5 ms each to read, and were skipped). A phrase's AND
 * also keeps only files where its trigrams can line up (`phraseFiles`).
 */
function evaluate(index: IndexData, query: TrigramQuery, within?: Uint32Array): Uint32Array {
  switch (query.op) {
    case 'trigram': {
      const slot = findKey(index.keys, query.key)
      return slot < 0 ? new Uint32Array(0) : readPostings(index, slot, within)
    }
    case 'and': {
      const parts = query.of.map((q) => ({ q, cost: cost(index, q) })).sort((a, b) => a.cost - b.cost)
      if (query.phrase !== undefined) return phraseFiles(index, query.phrase, parts, within)
      let ids = within
      for (const { q } of parts) {
        ids = evaluate(index, q, ids)
        if (ids.length === 0) break
      }
      return ids!
    }
    case 'or': {
      const each = query.of.map((q) => evaluate(index, q, within))
      return each.reduce(union)
    }
    /* v8 ignore next 2 -- patternQuery simplifies `all` out of every and/or, and a bare `all` falls back before evaluation */
    default:
      throw new RangeError('an unreduced query')
  }
}

/**
 * The files that hold every trigram of `phrase` at columns that can line up
 * (docs/design.md#a-literals-trigrams-must-line-up). For each file still standing it keeps the
 * phrase's possible starting columns modulo 16: a trigram `d` bytes into the phrase, at the columns its
 * mask holds, allows only starts `d` before those; one past a line end in the phrase must start at the
 * column it has there, or the file is dropped. Its lists are read cheapest first, each only as far as the
 * files still standing; a file none of whose starts is left is dropped.
 */
function phraseFiles(
  index: IndexData,
  phrase: string,
  parts: ReadonlyArray<{ q: TrigramQuery; cost: number }>,
  within: Uint32Array | undefined,
): Uint32Array {
  // Each trigram's offsets in the phrase (a trigram may recur in it), and for one past a line end in
  // the phrase, the column it must start at, whatever the phrase's start.
  const offsets = new Map<number, number[]>()
  const columns = new Map<number, number>()
  trigramsAt(phrase).forEach((key, i) => {
    const lineEnd = i === 0 ? -1 : phrase.lastIndexOf('\n', i - 1)
    if (lineEnd < 0) offsets.set(key, [...(offsets.get(key) ?? []), i])
    else columns.set(key, (columns.get(key) ?? 0) | (1 << ((i - lineEnd - 1) % POSITION_BITS)))
  })
  const full = (1 << POSITION_BITS) - 1
  let ids = within
  let starts: Uint16Array | undefined
  for (const { q } of parts) {
    const key = (q as Extract<TrigramQuery, { op: 'trigram' }>).key
    const slot = findKey(index.keys, key)
    if (slot < 0) return new Uint32Array(0)
    const list = readPostingList(index, slot, ids)
    const at = offsets.get(key) ?? []
    const column = columns.get(key) ?? 0
    const kept = new Uint32Array(list.ids.length)
    const keptStarts = new Uint16Array(list.ids.length)
    let count = 0
    let from = 0
    for (let i = 0; i < list.ids.length; i++) {
      const id = list.ids[i]!
      let allowed = full
      if (starts !== undefined) {
        while (ids![from] !== id) from++
        allowed = starts[from]!
      }
      const mask = list.positions[i]!
      for (const d of at) allowed &= rotateRight(mask, d)
      // Every column it must start at is among its columns, or no start is left.
      if ((mask & column) !== column) allowed = 0
      if (allowed === 0) continue
      kept[count] = id
      keptStarts[count++] = allowed
    }
    ids = kept.subarray(0, count)
    starts = keptStarts.subarray(0, count)
    if (count === 0) break
  }
  return ids!
}

/** A position mask moved `by` places toward lower positions, modulo 16. */
function rotateRight(mask: number, by: number): number {
  const r = by % POSITION_BITS
  return ((mask >>> r) | (mask << (POSITION_BITS - r))) & ((1 << POSITION_BITS) - 1)
}

/**
 * A path as one line of a gitignore-style file: anchored at rg's working directory, each glob
 * character and space escaped. Undefined when no line can name it (a newline, or bytes that are not
 * UTF-8, which rg would read differently).
 */
export function ignoreLine(rel: string, suffix = ''): string | undefined {
  if (/[\n\r]/.test(rel) || !isUtf8(Buffer.from(rel, 'latin1'))) return undefined
  return `!/${rel.replace(/[\\*?[\]{}!# \t]/g, (c) => `\\${c}`)}${suffix}`
}

/**
 * The ignore file a plan hands rg: `*` ignores everything, and each line after it takes back one path
 * and every directory above it. rg does not descend into an ignored directory, so it lists only the
 * directories that lead to a candidate instead of the whole tree.
 */
class IgnoreLines {
  readonly lines = ['*']
  private readonly dirs = new Set<string>()
  // A line once: a file both chosen and changed since the build is named by both (rg reads each line).
  private readonly taken = new Set<string>()

  /**
   * Takes back `local` (from the search directory; `''` is the search directory) with `suffix`:
   * `''` the entry itself, `'/*'` its own entries, `'/**'` all below it; and the directories that
   * lead there. False when no line can name it.
   */
  add(local: string, suffix: '' | '/*' | '/**' = ''): boolean {
    const line = local === '' ? `!${suffix}` : ignoreLine(local, suffix)
    if (line === undefined) return false
    if (this.taken.has(line)) return true
    this.taken.add(line)
    // `dir/**` and `dir/*` do not match `dir` itself: a directory whose insides are taken back is too.
    this.directory(suffix === '' ? local.slice(0, Math.max(0, local.lastIndexOf('/'))) : local)
    this.lines.push(line)
    return true
  }

  /** Takes back a directory and those above it (each once: a directory taken back has its parents). */
  private directory(rel: string): void {
    if (rel === '' || this.dirs.has(rel)) return
    this.directory(rel.slice(0, Math.max(0, rel.lastIndexOf('/'))))
    this.dirs.add(rel)
    // Part of a name ignoreLine took, so it takes this too.
    this.lines.push(ignoreLine(rel, '/')!)
  }
}

/**
 * What a plan leaves to rg's walk although `walked` names it (docs/design.md#a-plan-names-what-rgs-walk-would-search):
 * each entry from the search directory whose file rg must find by its walk, because what the index
 * says of it may be stale or the index holds no path for it.
 */
class Walked {
  /** Files changed since the build. */
  readonly files = new Set<string>()
  /** Directories whose own entries changed: their files are read. */
  readonly own = new Set<string>()
  /** Entries read whole, with all below them: new or replaced directories, unread ones, followed links, entries an event named. */
  readonly whole = new Set<string>()

  /** Whether the file at `local` (from the search directory) is one of these, or lies in or below one. */
  has(local: string): boolean {
    if (this.files.has(local) || this.whole.has(local)) return true
    let slash = local.lastIndexOf('/')
    if (this.own.has(local.slice(0, Math.max(0, slash)))) return true
    for (; slash > 0; slash = local.lastIndexOf('/', slash - 1)) if (this.whole.has(local.slice(0, slash))) return true
    return false
  }
}

/** Creates the local index: `plan` for searches, `settings` for `dsh index`. */
export function createLocalSearchIndex(options: LocalSearchIndexOptions): LocalSearchIndex {
  const { bash, statfsType = (path: string) => statfsSync(path).type, ...rest } = options
  const settings = resolveIndexOptions(rest)

  /** The nearest index that covers `dir` (a real path), with its root; undefined when none does. */
  async function findIndex(dir: string): Promise<Found | undefined> {
    for (const root of ancestors(dir)) {
      const home = treeDir(settings.dir, root)
      const file = join(home, INDEX_FILE)
      const info = await stat(file, { bigint: true }).catch(() => undefined)
      if (info === undefined) continue
      await assertPrivate(home)
      await assertPrivate(file)
      const stamp = `${info.ino}:${info.size}:${info.mtimeNs}`
      let loaded = LOADED.get(file)
      if (loaded?.stamp !== stamp) loaded = await loadOnce(file, stamp)
      LOADED.delete(file)
      LOADED.set(file, loaded)
      if (LOADED.size > LOADED_MAX) {
        // A plan reads postings only synchronously, right after this returns: no plan is reading it.
        const [oldest, evicted] = LOADED.entries().next().value!
        evicted.data.close()
        evicted.update?.data.close()
        LOADED.delete(oldest)
      }
      if (loaded.data.header.root !== root)
        throw new IndexError('INDEX_REFUSED', `the index at ${file} is of another tree (${loaded.data.header.root})`)
      await readUpdate(loaded, root, join(home, UPDATE_FILE))
      return {
        root,
        data: loaded.data,
        loaded,
        file,
        // A new update (or none) restarts the watcher, from its mark.
        stamp: loaded.updateStamp === '' ? stamp : `${stamp}+${loaded.updateStamp}`,
        mark: loaded.mark,
        update: loaded.update,
        dirs: loaded.dirs,
        unread: loaded.unread,
      }
    }
    return undefined
  }

  function watcherOptions(root: string): WatcherOptions {
    const syncDir = join(treeDir(settings.dir, root), 'sync')
    return { syncDir, maxNames: settings.changedMaxEntries, burstLimit: Math.floor(inotifyQueueLimit() / 2) }
  }

  /**
   * The changes since the build as this process's watcher of the index saw them. The first search
   * starts the watcher and then walks the whole tree once (the seed): what changed before a watch was
   * in place has a later ctime than the build, and what changed after is an event. `walk` when the
   * watcher cannot vouch (broken, or its sync marker late): the search walks as a one-shot one does.
   */
  async function watched(found: Found, signal: AbortSignal): Promise<Watched> {
    const { file, stamp, root, loaded } = found
    // A tree that may change without an event here (a network mount) is walked, as a one-shot search walks it.
    if (!eventful(root)) return { kind: 'walk' }
    let entry = WATCHERS.get(file)
    if (entry === undefined || entry.stamp !== stamp || entry.dead) {
      // The watcher of a rebuilt index (a dead one is closed already; closing twice is harmless).
      void entry?.watcher.then((w) => w.close())
      entry = { stamp, watcher: TreeWatcher.start(root, found.dirs, watcherOptions(root)), dead: false, serial: ++watchersStarted }
      WATCHERS.set(file, entry)
    }
    const watcher = await entry.watcher
    if (!(await watcher.sync(SYNC_TIMEOUT_MS))) {
      // Broken for good: the next search starts another watcher; this one walks as a one-shot one does.
      entry.dead = true
      watcher.close()
      return { kind: 'walk' }
    }
    // Started after every watch was in place: what changed before one was has a later ctime than the
    // build; what changed after is an event, and the sync above has every event made before the search.
    if (watcher.walked === undefined) {
      const seed = await changedSince(bash, root, found.mark, CHANGE_WALK_LIMITS, signal, splitFor(loaded, ''))
      if (!seed.ok) return { kind: 'failed', why: seed.why }
      watcher.walked = seed.changed
    }
    const changes = watcher.changes()
    return changes === undefined ? { kind: 'too-many' } : { kind: 'changes', ...changes, serial: entry.serial }
  }

  /**
   * The mark of a quiet `dir`: the index file's stamp and the watcher's serial, while that watcher
   * proves nothing below `dir` changed since the build (docs/design.md#a-quiet-tree-needs-no-link-revalidation).
   * Nothing changed is what it can state (its list of changes only grows), so the mark stays the same
   * exactly as long as the tree does; a rebuilt index or a new watcher gives another.
   */
  function unchangedMark({ dir, signal }: { dir: string; signal: AbortSignal }): Promise<string | undefined> {
    return markOf(dir, signal, () => true)
  }

  /**
   * The same mark while no change below `dir` since the build can change which of the files that did
   * not change rg's walk reaches: no ignore file and no VCS directory added, removed or written
   * (docs/design.md#a-list-outlives-changes-that-are-walked). Every other change a plan walks itself.
   */
  function walkMark({ dir, signal }: { dir: string; signal: AbortSignal }): Promise<string | undefined> {
    return markOf(dir, signal, (rel) => WALK_INPUTS.has(rel.slice(rel.lastIndexOf('/') + 1)))
  }

  /** The mark of `dir` while the watcher proves that no change below it since the build `matters`. */
  async function markOf(given: string, signal: AbortSignal, matters: (rel: string) => boolean): Promise<string | undefined> {
    if (!settings.watch) return undefined
    await refreshing
    try {
      const dir = await realpath(given)
      const info = await stat(dir)
      if (!info.isDirectory()) return undefined
      const found = await findIndex(dir)
      // As a plan: a clock behind the build could hide a change from the seed walk.
      if (found === undefined || BigInt(Date.now()) * 1_000_000n < found.mark) return undefined
      const dirRel = found.root === dir ? '' : dir.slice(found.root.length + 1)
      // Not the directory indexed (new, replaced), or one the build could not read.
      if (found.dirs.get(dirRel) !== info.ino) return undefined
      const prefix = dirRel === '' ? '' : `${dirRel}/`
      const below = (rel: string) => rel === dirRel || rel.startsWith(prefix)
      // A directory the build could not read has no watch: changes there make no event.
      if (found.unread.some(below)) return undefined
      const seen = await watched(found, signal)
      if (seen.kind !== 'changes' || seen.walked.some((c) => below(c.rel) && matters(c.rel))) return undefined
      for (const rel of seen.named) if (below(rel) && matters(rel)) return undefined
      return `${found.stamp}:${seen.serial}`
    } catch {
      return undefined
    }
  }

  /**
   * Loads the index that covers `dir` and starts its watcher, with the watcher's one walk of the tree,
   * so that the first search finds them ready (docs/design.md#a-warm-process-loads-its-index-first).
   * Only in a process that watches; nothing without an index; never fails: a search meets the same
   * fault again and answers for it.
   */
  async function prepare({ dir: given, signal }: { dir: string; signal: AbortSignal }): Promise<void> {
    if (!settings.watch) return
    await refreshing
    try {
      const found = await findIndex(await realpath(given))
      if (found !== undefined) await watched(found, signal)
    } catch {
      // Refused, unreadable, gone: the search that comes next says so.
    }
  }

  /**
   * Updates the index that covers `dir` from this process's watcher of it, as `dsh index` would but
   * without its walk (docs/design.md#a-warm-process-updates-its-index), and hands the watcher on to
   * the update's mark. One refresh at a time in a process; searches wait for it. Skipped, saying why,
   * when no watcher can vouch for every change since the index (or its update) was built, or the
   * changes are too many to key: `dsh index` then walks or builds whole.
   */
  function refresh(dir: string, { signal }: { signal?: AbortSignal } = {}): Promise<RefreshReport> {
    const run = refreshing
      .then(() => refreshOnce(dir, signal))
      .catch((error: unknown): RefreshReport => ({ kind: 'skipped', why: `the refresh failed (${(error as Error).message})` }))
    refreshing = run.then(() => undefined)
    return run
  }

  async function refreshOnce(given: string, signal: AbortSignal | undefined): Promise<RefreshReport> {
    const started = Date.now()
    const skipped = (why: string): RefreshReport => ({ kind: 'skipped', why })
    if (!settings.watch) return skipped('this process keeps no watchers (index-local.watch is off)')
    let found: Found | undefined
    try {
      found = await findIndex(await realpath(given))
    } catch (error) {
      return skipped((error as Error).message)
    }
    if (found === undefined) return skipped('no index covers the path')
    const { file, root, loaded } = found
    const entry = WATCHERS.get(file)
    const before = entry === undefined || entry.stamp !== found.stamp || entry.dead ? undefined : await entry.watcher
    if (before?.walked === undefined) return skipped('no watcher of this index has seen the tree since it was built: a search starts one')
    // Taken before the changes are read, as an update's mark is: what changes after it is recorded again.
    const mark = await clockMark(treeDir(settings.dir, root))
    if (!(await before.sync(SYNC_TIMEOUT_MS))) {
      entry!.dead = true
      before.close()
      return skipped('the watcher cannot vouch for every change (its sync marker did not come)')
    }
    const changes = before.changes()
    if (changes === undefined) return skipped(`more than ${settings.changedMaxEntries} files and directories changed: run dsh index`)
    const cut = before.cut()
    // Every change since the index's build: the update's (it holds them all, and is replaced), then the watcher's since it.
    const previous = found.update?.data
    const changed = [
      ...(previous === undefined ? [] : [...previous.dirs].map(([rel, inode]) => ({ type: 'd', inode, rel }))),
      ...changes.walked,
      ...(await entriesNamed(root, [...(found.update?.keyed ?? []), ...changes.named])),
    ]
    let written: KeyedChanges
    let baseBytes: number
    try {
      baseBytes = (await stat(file)).size
      written = await keyChanges(settings, { root, base: found.data, baseBytes, changed, builtAtNs: mark, signal })
    } catch (error) {
      return skipped(`the update was not written (${(error as Error).message})`)
    }
    if (written.kind === 'whole') return skipped(`${written.why}: run dsh index`)
    const { dirs: _dirs, inode: _inode, kind: _kind, ...keyed } = written
    const report = (handedOn: boolean): RefreshReport => ({
      ...keyed,
      kind: 'updated',
      changed: changed.length,
      basePath: file,
      baseBytes,
      handedOn,
      elapsedMs: Date.now() - started,
    })
    // Gone already (a rebuild removed it): the refresh failed, and the next search starts a watcher.
    const info = await stat(written.indexPath, { bigint: true })
    // Another writer's update (a `dsh index` elsewhere) renamed over this one, or the watchers were closed.
    if (Number(info.ino) !== written.inode || WATCHERS.get(file) !== entry) return report(false)
    const after = await TreeWatcher.start(root, new Map([...found.data.dirs, ...written.dirs]), watcherOptions(root))
    // Its watches are in place: one sync proves that every event before it came, to both watchers.
    const carried = (await after.sync(SYNC_TIMEOUT_MS)) ? before.namedSince(cut) : undefined
    if (carried === undefined || before.broken !== undefined) {
      after.close()
      return report(false)
    }
    // What changed since the mark is what the old watcher recorded since the cut, and anything in a
    // directory it did not watch: such a directory (new since it started) is read whole until the next
    // refresh, which finds it watched.
    after.walked = []
    after.carry([
      ...carried,
      ...written.dirs.filter(([rel, inode]) => inode !== UNREAD_DIR && before.watching.get(rel) !== inode).map(([rel]) => rel),
    ])
    before.close()
    const stamp = `${loaded.stamp}+${info.ino}:${info.size}:${info.ctimeNs}`
    WATCHERS.set(file, { stamp, watcher: Promise.resolve(after), dead: false, serial: ++watchersStarted })
    return report(true)
  }

  /** Whether the kernel reports every change to the tree at `root` (docs/design.md#a-watched-tree-needs-no-link-stats). */
  function eventful(root: string): boolean {
    try {
      return reportsEveryChange(statfsType(root))
    } catch {
      return false
    }
  }

  /**
   * The search directory's real path and inode and the index that covers it, once no refresh is in
   * flight (one hands its watcher on when it ends: a search meanwhile would start another); or why
   * the search goes without.
   */
  async function locate(
    given: string,
  ): Promise<{ dir: string; inode: number; found: Found } | Extract<IndexAnswer, { kind: 'full-scan' }>> {
    await refreshing
    let dir: string
    let inode: number
    try {
      dir = await realpath(given)
      const info = await stat(dir)
      if (!info.isDirectory()) return fullScan('no-index', 'the search path is a file')
      inode = info.ino
    } catch {
      return fullScan('no-index', 'the search path does not exist')
    }
    let found: Found | undefined
    try {
      found = await findIndex(dir)
    } catch (error) {
      return fullScan('refused', (error as Error).message)
    }
    if (found === undefined) return fullScan('no-index', 'no index covers the search path')
    return { dir, inode, found }
  }

  /** A watcher that kept more changed names than `changedMaxEntries`: the search reads the whole tree. */
  function tooManyChanged(): Extract<IndexAnswer, { kind: 'full-scan' }> {
    return fullScan(
      'changed',
      `more than ${settings.changedMaxEntries} files and directories changed since the index was built: run dsh index`,
    )
  }

  /**
   * Past `changedMaxEntries` changes since the mark the search reads the whole tree (the index is too
   * old to save much). A watcher's `count` of at least `refreshAfter` starts a refresh: the search
   * goes on, the update is keyed beside it, and the next search waits for it.
   */
  function pastChanged(root: string, count: number, fromWatcher: boolean): Extract<IndexAnswer, { kind: 'full-scan' }> | undefined {
    if (fromWatcher && settings.refreshAfter > 0 && count >= settings.refreshAfter) void refresh(root)
    if (count <= settings.changedMaxEntries) return undefined
    return fullScan('changed', `${count} files and directories changed since the index was built: run dsh index`)
  }

  async function plan(query: IndexQuery): Promise<LocalIndexAnswer> {
    const located = await locate(query.dir)
    if ('kind' in located) return located
    const { dir, inode, found } = located
    const { root, data, loaded, update, dirs, unread } = found
    const query3 = patternQuery(query.pattern, { caseInsensitive: query.caseInsensitive })
    if (query3.op === 'all') return fullScan('unreducible', 'the pattern has no literal of three bytes every match must contain')
    const builtAtNs = found.mark
    if (BigInt(Date.now()) * 1_000_000n < builtAtNs) return fullScan('freshness', 'the clock is earlier than the index build')
    const prefix = root === dir ? '' : `${dir.slice(root.length + 1)}/`
    const under = (rel: string) => rel.startsWith(prefix)
    let ids: Uint32Array
    let updated: Uint32Array
    try {
      ids = evaluate(data, query3)
      updated = update === undefined ? new Uint32Array(0) : evaluate(update.data, query3)
    } catch (error) {
      return fullScan('refused', (error as Error).message)
    }
    const ignore = new IgnoreLines()
    const indexedFiles = filesUnder(loaded, prefix)
    let candidates = 0
    // With rg's own list, a candidate keyed without a NUL byte may be named to rg instead of walked to
    // (docs/design.md#a-plan-names-what-rgs-walk-would-search): held until the changes are known.
    const naming = query.walked !== undefined
    const nameable: string[] = []
    // The index's candidates but those the update keyed again, then the update's.
    const sources = [{ index: data, ids: union(ids, loaded.always), skip: update?.keyed }]
    if (update !== undefined) sources.push({ index: update.data, ids: union(updated, update.always), skip: undefined })
    for (const { index, ids: chosen, skip } of sources) {
      for (const id of chosen) {
        const rel = index.files.at(id)
        if (!under(rel) || skip?.has(rel) === true) continue
        candidates++
        const local = rel.slice(prefix.length)
        if (naming && index.fileFlags[id] === FILE_INDEXED) nameable.push(local)
        else if (!ignore.add(local)) return fullScan('names', 'a candidate file has a name an ignore file cannot hold')
      }
    }
    if (candidates > indexedFiles * settings.broadFraction) {
      return fullScan('broad', `${candidates} of ${indexedFiles} files may match: a full scan is as fast`)
    }
    const dirRel = prefix.slice(0, -1)
    // A search directory the index does not know by this inode (new, moved in, replaced, or unread at
    // the build) is not the one it indexed.
    if (dirs.get(dirRel) !== inode) {
      return fullScan('changed', 'the search directory is not the one indexed (new, replaced, or unreadable at the build)')
    }
    let changed: readonly Changed[]
    let named: ReadonlySet<string> = new Set()
    let changesFrom: 'watcher' | 'walk' = 'walk'
    const seen = settings.watch ? await watched(found, query.signal) : ({ kind: 'walk' } as const)
    if (seen.kind === 'failed') return fullScan('freshness', seen.why)
    if (seen.kind === 'too-many') return tooManyChanged()
    if (seen.kind === 'changes') {
      changed = seen.walked
      named = seen.named
      changesFrom = 'watcher'
    } else {
      const walked = await changedSince(bash, dir, builtAtNs, CHANGE_WALK_LIMITS, query.signal, splitFor(loaded, prefix))
      if (!walked.ok) return fullScan('freshness', walked.why)
      // From the root, as the watcher's are.
      changed = walked.changed.map((c) => ({ ...c, rel: c.rel === '' ? dirRel : prefix + c.rel }))
    }
    const changedCount = changed.length + named.size
    const past = pastChanged(root, changedCount, changesFrom === 'watcher')
    if (past !== undefined) return past
    const walkedTo = new Walked()
    // What rg reaches through a link it follows has no path in the index: read it all.
    for (const link of query.followedLinks ?? []) {
      walkedTo.whole.add(link.path)
      // The link itself (rg follows it as the directory it leads to), then what lies below it.
      if (!ignore.add(link.path) || (link.directory && !ignore.add(link.path, '/**')))
        return fullScan('names', 'a followed link has a name an ignore file cannot hold')
    }
    // A directory the build could not read is searched whole, every time.
    for (const rel of unread) {
      if (!under(`${rel}/`)) continue
      walkedTo.whole.add(rel.slice(prefix.length))
      if (!ignore.add(rel.slice(prefix.length), '/**'))
        return fullScan('names', 'an unread directory has a name an ignore file cannot hold')
    }
    for (const { type, inode: changedInode, rel } of changed) {
      // The watcher's seed walked the whole tree: what lies outside this search does not matter to it.
      if (rel !== dirRel && !rel.startsWith(prefix)) continue
      const local = rel === dirRel ? '' : rel.slice(prefix.length)
      if (type !== 'd') {
        walkedTo.files.add(local)
        if (!ignore.add(local)) return fullScan('names', 'a changed file has a name an ignore file cannot hold')
        continue
      }
      // A directory whose entries changed: its own files are searched; a directory the index does not
      // know by this inode (new, moved in, replaced) is searched whole.
      const whole = dirs.get(rel) !== changedInode
      /* v8 ignore next 2 -- replaced between the inode check above and the walk: a race no test can order */
      if (local === '' && whole)
        return fullScan('changed', 'the search directory is not the one indexed (new, replaced, or unreadable at the build)')
      ;(whole ? walkedTo.whole : walkedTo.own).add(local)
      if (!ignore.add(local, whole ? '/**' : '/*')) return fullScan('names', 'a changed directory has a name an ignore file cannot hold')
    }
    // An entry an event named may be a file or a directory, old or new: both are searched.
    for (const rel of named) {
      if (!rel.startsWith(prefix)) continue
      const local = rel.slice(prefix.length)
      walkedTo.whole.add(local)
      if (!ignore.add(local) || !ignore.add(local, '/**')) return fullScan('names', 'a changed entry has a name an ignore file cannot hold')
    }
    // A file named needs no ignore line, so a name no line can hold no longer sends the search whole.
    const names: string[] = []
    for (const local of nameable) {
      const path = walkedTo.has(local) ? undefined : query.walked?.(local)
      if (path !== undefined) names.push(path)
      else if (!ignore.add(local)) return fullScan('names', 'a candidate file has a name an ignore file cannot hold')
    }
    const stem = join(treeDir(settings.dir, root), `query-${process.pid}-${randomBytes(6).toString('hex')}`)
    // Nothing left to walk (only `*`): only a caller that names files can search without the ignore file.
    const ignoreFile = naming && ignore.lines.length === 1 ? undefined : `${stem}.ignore`
    const namedFile = names.length === 0 ? undefined : `${stem}.named`
    const writes = new Map<string, Buffer>()
    if (ignoreFile !== undefined) writes.set(ignoreFile, Buffer.from(`${ignore.lines.join('\n')}\n`, 'latin1'))
    // rg's `--files-from`-style list: each path as rg prints it, ended by a NUL (a name may hold a newline).
    if (namedFile !== undefined) writes.set(namedFile, Buffer.from(names.map((n) => `${n}\0`).join(''), 'latin1'))
    const release = async (): Promise<void> => {
      await Promise.all([...writes.keys()].map((file) => rm(file, { force: true })))
    }
    const written = await Promise.allSettled([...writes].map(([file, bytes]) => writeFile(file, bytes, { mode: 0o600, flag: 'wx' })))
    const failed = written.find((w) => w.status === 'rejected')
    /* v8 ignore next 4 -- a write that fails beside one that did not (the disk filled between two small writes): no test can order it */
    if (failed !== undefined) {
      await release()
      throw failed.reason
    }
    return {
      kind: 'candidates',
      ignoreFile,
      namedFile,
      named: names.length,
      indexedFiles,
      candidates,
      changed: changedCount,
      changesFrom,
      release,
    }
  }

  /**
   * The modification times of the files below `dir` for glob (docs/design.md#glob-reads-times-from-the-index):
   * the ones the index recorded where this process's watcher proves them unchanged since, any other
   * read now. Only a warm process answers: without a watcher, proving a time unchanged takes the
   * change walk, which stats every entry, as glob's own listing does.
   */
  async function times({ dir: given, signal }: { dir: string; signal: AbortSignal }): Promise<IndexTimesAnswer> {
    const located = await locate(given)
    if ('kind' in located) return located
    const { dir, inode, found } = located
    const { root, loaded, dirs } = found
    const reads = "glob reads every file's time"
    if (!settings.watch || !eventful(root))
      return fullScan('freshness', `no watcher in this process vouches for the recorded times: ${reads}`)
    if (BigInt(Date.now()) * 1_000_000n < found.mark) return fullScan('freshness', 'the clock is earlier than the index build')
    const dirRel = root === dir ? '' : dir.slice(root.length + 1)
    if (dirs.get(dirRel) !== inode) {
      return fullScan('changed', 'the search directory is not the one indexed (new, replaced, or unreadable at the build)')
    }
    const seen = await watched(found, signal)
    if (seen.kind === 'walk') return fullScan('freshness', `the watcher cannot vouch for every change: ${reads}`)
    if (seen.kind === 'failed') return fullScan('freshness', seen.why)
    if (seen.kind === 'too-many') return tooManyChanged()
    const changed = seen.walked.length + seen.named.size
    const past = pastChanged(root, changed, true)
    if (past !== undefined) return past
    const prefix = dirRel === '' ? '' : `${dirRel}/`
    const recorded = new RecordedTimes({
      root,
      prefix,
      data: found.data,
      ...(found.update === undefined ? {} : { update: found.update.data }),
      dirs,
      walked: seen.walked,
      named: seen.named,
    })
    return {
      kind: 'times',
      indexedFiles: filesUnder(loaded, prefix),
      changed,
      timeOf: (name, start, end, out) => recorded.timeOf(name, start, end, out),
    }
  }

  async function watches(root: string): Promise<boolean> {
    if (!settings.watch) return false
    const file = join(treeDir(settings.dir, root), INDEX_FILE)
    const entry = WATCHERS.get(file)
    if (entry === undefined || entry.dead) return false
    // The index as it is now (not rebuilt or updated by another process since the watcher started,
    // nor gone, when an ancestor's would be found), and a seed walk done.
    // A refused index is no index this process watches.
    const found = await findIndex(root).catch(() => undefined)
    if (found?.file !== file || found.stamp !== entry.stamp) return false
    return (await entry.watcher).walked !== undefined
  }

  return { settings, plan, unchangedMark, walkMark, prepare, refresh, watches, times }
}

/**
 * Each name as a change entry (a file, or a directory with its inode); a name that is gone or neither
 * is left out: a file deleted needs no key, and its directory's change is recorded too.
 */
async function entriesNamed(root: string, names: Iterable<string>): Promise<Changed[]> {
  const entries: Changed[] = []
  for (const rel of new Set(names)) {
    const info = await lstat(pathOf(root, rel), { bigint: true }).catch(() => undefined)
    if (info?.isFile() === true) entries.push({ type: 'f', inode: Number(info.ino), rel })
    else if (info?.isDirectory() === true) entries.push({ type: 'd', inode: Number(info.ino), rel })
  }
  return entries
}
