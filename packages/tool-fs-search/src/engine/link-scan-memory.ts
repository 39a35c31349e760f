// The link scan remembered between calls: each root's directories and links, revalidated by a stat per
// directory, or in a long-lived process by a watch that names the directories that changed.
import path from 'node:path'
import type { DirectoryWatch, FileSystem, PathStamp, WatchedChanges } from '@dsh/core'

/**
 * What GNU find reported of a link's target (`%Y`, `%l`): its type after following (`d`, `f`, ..., `N`
 * missing, `L` a loop, `?` unknown) and the link's own text, undefined when that is not UTF-8.
 */
export interface TargetInfo {
  type: string
  text: string | undefined
}

/** One link a scan found: its path from the search root, and what find reported of its target when it could. */
export interface ScannedLink {
  name: string
  target?: TargetInfo
}

/**
 * One directory a scan visited: its path from the search root (`.` for the root), its depth below the
 * scan's start, its stamp (device, inode, mtime and ctime in ns, as `PathStamp` spells them) taken
 * before find read it, and the later of its mtime and ctime in ns.
 */
export interface ScannedDir {
  name: string
  depth: number
  stamp: string
  changedNs: bigint
}

/** A scan's links, and (asked for) its directories. */
export interface Scan {
  links: ScannedLink[]
  workdir: string
  /** find read every directory (it exited 0). */
  complete: boolean
  /** Every directory, when they were asked for and each record could be read (a name that is not UTF-8 cannot). */
  dirs?: ScannedDir[]
}

/** Runs a scan of the root from `starts`: every level below them, or (`one`) each start and its entries only. */
export type RunScan = (starts: readonly string[], depth: 'all' | 'one') => Promise<Scan | string>

/**
 * The content index's mark of a quiet root (`SearchIndex.unchangedMark`): equal marks before a scan
 * and now prove the tree is as the scan read it. Undefined when nothing vouches.
 */
export type QuietMark = () => Promise<string | undefined>

/** What one directory held when it was last read. */
interface DirRecord {
  stamp: string
  /** Its stamp was taken long enough after its last change to prove the next change moves it. */
  settled: boolean
  links: Array<{ name: string; text: string | undefined }>
  dirs: string[]
}

/**
 * A watch over one root's directories (docs/design.md#a-watched-tree-needs-no-link-stats): a directory
 * it watches, and whose record was proven current after its watch was in place, needs no stat while no
 * event names it. The rest are `pending`, statted every call as without a watch.
 */
interface Watching {
  /** Undefined while it starts. */
  watch?: DirectoryWatch | undefined
  /** Every directory asked for has its watch (they are added after the search that started it). */
  ready: boolean
  /** Given up: the root was walked again or evicted, or the file system cannot watch it. */
  closed: boolean
  /** Directories, by name, that have a watch. */
  watched: Set<string>
  /** Directories, by name, whose record is not yet proven current since their watch, or that have none. */
  pending: Set<string>
  /** The directories changed under a search that could not use the watch: watches are matched to them at the next. */
  stale: boolean
}

/** One root's last scan. */
interface Remembered {
  workdir: string
  rootAbsolute: string
  rootReal: string
  dirs: Map<string, DirRecord>
  size: number
  /** The quiet mark taken before the scan that read `dirs`, when there was one. */
  mark: string | undefined
  watching?: Watching | undefined
  /** Watches started for the root since its last walk: one that keeps breaking is not started again. */
  watchStarts: number
}

// Roots remembered at once; the least recently searched goes first.
const MAX_ROOTS = 16
// Directories and links remembered over every root: a few hundred bytes each, so tens of MB at most.
const MAX_ENTRIES = 200_000
// Watches started for one root before it is left to stats: a tree whose bursts overflow the queue.
const MAX_WATCH_STARTS = 3

/** Closes every watch of a memory no host holds any more (a harness has no close of its own). */
export function closeWatches(watches: Set<DirectoryWatch>): void {
  for (const watch of watches) watch.close()
  watches.clear()
}
const unheld = new FinalizationRegistry<Set<DirectoryWatch>>(closeWatches)

/** The stamp of a path as the file system reports it, spelled as a scan spells it. */
export function stampOf(stamp: PathStamp): string {
  return `${stamp.dev} ${stamp.ino} ${stamp.mtimeNs} ${stamp.ctimeNs}`
}

/**
 * Each root's last link scan, kept between the calls of one process and revalidated instead of walked
 * again (docs/design.md#the-link-scan-is-remembered). A new, removed or renamed entry changes its
 * directory's mtime and ctime, so every directory the last scan read is statted, and only those whose
 * stamp moved, or whose last change fell within `settleMs` of the scan that read them, are read again,
 * with any new directory below them walked whole. Links are judged anew by the caller every call: their
 * targets come from a stat of each (following), since a target can change without its parent.
 */
export class LinkScanMemory {
  private readonly roots = new Map<string, Remembered>()
  private entries = 0
  // Every live watch, apart from the roots: the finalizer closes them without holding the memory.
  private readonly watches = new Set<DirectoryWatch>()
  private readonly starting = new Set<Promise<void>>()
  // The last scan of each key under way: the next waits for it.
  private readonly scanning = new Map<string, Promise<unknown>>()

  constructor(
    /** How long after a change a directory's stamp is not trusted (`linkScanSettleMs`). */
    readonly settleMs: number,
    private readonly now: () => number = Date.now,
    /** Watch a root's directories from its second search on, where the file system can (`watchLinkScans`). */
    readonly watchTrees: boolean = true,
  ) {
    unheld.register(this, this.watches)
  }

  /** Settles once every watch being started has its directories watched (or was given up). */
  async watchesStarted(): Promise<void> {
    await Promise.all(this.starting)
  }

  /** How many remembered roots have a watch in place. */
  get watchedRoots(): number {
    let count = 0
    for (const kept of this.roots.values()) if (kept.watching?.ready === true && !kept.watching.closed) count++
    return count
  }

  /** How many roots and entries are remembered. */
  get size(): { roots: number; entries: number } {
    return { roots: this.roots.size, entries: this.entries }
  }

  /**
   * The links below `root` (as the model gave it), from the remembered scan of `key` when it still
   * holds, else from a walk, which is remembered when it read everything. The scans of one key take
   * turns: a call that finds one under way (a warm-up's walk, another call's) waits for it, and then
   * checks what that one kept as it would any remembered scan, so a change made while it ran is seen
   * and the tree is not walked twice at once. A call whose `signal` aborts as it waits runs its own
   * walk, which stops on that signal, and neither takes nor keeps the memory.
   */
  async scan(
    key: string,
    root: string,
    fs: FileSystem & Required<Pick<FileSystem, 'stampMany'>>,
    run: RunScan,
    signal: AbortSignal,
    quiet?: QuietMark,
  ): Promise<Scan | string> {
    const before = this.scanning.get(key)
    const mine = (async () => {
      if (before !== undefined) {
        await settledOrAborted(before, signal)
        // Stopped waiting: the scan under way is not this call's to check or keep. Its own walk stops
        // at once on its signal, and the call says so as any stopped search does.
        if (signal.aborted) return run(['.'], 'all')
      }
      return this.scanInTurn(key, root, fs, run, quiet)
    })()
    // The turn ends when this scan and every one before it have: one that stopped waiting does not end another's.
    const turn = Promise.all([before, mine.then(noop, noop)])
    this.scanning.set(key, turn)
    void turn.then(() => {
      if (this.scanning.get(key) === turn) this.scanning.delete(key)
    })
    return mine
  }

  private async scanInTurn(
    key: string,
    root: string,
    fs: FileSystem & Required<Pick<FileSystem, 'stampMany'>>,
    run: RunScan,
    quiet: QuietMark | undefined,
  ): Promise<Scan | string> {
    // Taken before anything is read: a change after it moves the next one.
    const mark = await quiet?.()
    const last = this.take(key)
    if (last !== undefined) {
      let warm: Awaited<ReturnType<LinkScanMemory['revalidate']>>
      try {
        warm = await this.revalidate(last, fs, run, mark !== undefined && mark === last.mark)
      } catch (error) {
        // Taken out and not kept (a scan stopped by the caller or its time limit): its watch goes too.
        this.unwatch(last)
        throw error
      }
      if (warm !== undefined) {
        const kept = { ...warm.remembered, mark }
        this.keep(key, kept)
        // From a root's second search on: a root searched once (a one-shot process) is never watched.
        if (kept.watching === undefined) this.startWatching(kept, fs)
        return warm.scan
      }
      this.unwatch(last)
    }
    return this.walk(key, root, fs, run, mark)
  }

  /** A walk of the whole tree, kept when it read everything. */
  private async walk(
    key: string,
    root: string,
    fs: FileSystem & Required<Pick<FileSystem, 'stampMany'>>,
    run: RunScan,
    mark: string | undefined,
  ): Promise<Scan | string> {
    const started = this.now()
    const cold = await run(['.'], 'all')
    if (typeof cold === 'string' || !cold.complete || cold.dirs === undefined) return cold
    const rootAbsolute = path.resolve(cold.workdir, root)
    const rootReal = await fs.realpath(rootAbsolute).catch(() => undefined)
    const records = this.readRecords(cold, 'all', started)
    if (rootReal !== undefined && records.has('.'))
      this.keep(key, { workdir: cold.workdir, rootAbsolute, rootReal, dirs: records, size: sizeOf(records), mark, watchStarts: 0 })
    return { links: sortedLinks(cold.links), workdir: cold.workdir, complete: true }
  }

  /** The remembered scan of `key`, taken out while it is checked. */
  private take(key: string): Remembered | undefined {
    const last = this.roots.get(key)
    if (last === undefined) return undefined
    this.roots.delete(key)
    this.entries -= last.size
    return last
  }

  private keep(key: string, remembered: Remembered): void {
    if (remembered.size > MAX_ENTRIES) return this.unwatch(remembered)
    // The scans of a key take turns, and each took the key's out first: there is none here to replace.
    this.entries += remembered.size
    this.roots.set(key, remembered)
    for (const [oldest, kept] of this.roots) {
      if (this.entries <= MAX_ENTRIES && this.roots.size <= MAX_ROOTS) break
      this.roots.delete(oldest)
      this.entries -= kept.size
      this.unwatch(kept)
    }
  }

  private unwatch(remembered: Remembered): void {
    const watching = remembered.watching
    if (watching === undefined) return
    watching.closed = true
    if (watching.watch !== undefined) {
      watching.watch.close()
      this.watches.delete(watching.watch)
    }
    remembered.watching = undefined
  }

  /**
   * Starts a watch over the root's directories, in the background: each directory is pending (statted
   * at the next search, which proves its record current after its watch was in place). Not where the
   * file system cannot watch it, or a directory lies on another device (it may be a network mount).
   */
  private startWatching(remembered: Remembered, fs: FileSystem): void {
    if (!this.watchTrees || fs.watchDirectories === undefined || remembered.watchStarts >= MAX_WATCH_STARTS) return
    remembered.watchStarts++
    const device = remembered.dirs.get('.')!.stamp.split(' ')[0]
    for (const record of remembered.dirs.values()) if (record.stamp.split(' ')[0] !== device) return
    const names = [...remembered.dirs.keys()]
    const watching: Watching = { ready: false, closed: false, watched: new Set(names), pending: new Set(names), stale: false }
    remembered.watching = watching
    const { rootReal } = remembered
    const started = (async () => {
      // A provider that throws is one that cannot watch.
      const watch = await fs.watchDirectories!(rootReal).catch(() => undefined)
      if (watch === undefined) {
        // Not a file system that reports every change: stats (a few starts, each one statfs, then no more).
        watching.closed = true
        return
      }
      // Walked again or evicted while the watch started.
      if (watching.closed) return watch.close()
      watching.watch = watch
      this.watches.add(watch)
      const where = (name: string) => (name === '.' ? rootReal : path.join(rootReal, name))
      for (const unwatched of await watch.add(names.map(where))) watching.watched.delete(nameIn(rootReal, unwatched))
      watching.ready = true
    })()
    this.starting.add(started)
    void started.finally(() => this.starting.delete(started))
  }

  /**
   * The scan as the tree stands, from `last` and the directories that changed since, or undefined when
   * it cannot be proven (the root moved, a directory read again is gone or is a link now, a scan failed):
   * the caller walks the tree. `quiet`: the index's watcher proved no directory changed since the scan
   * that read `last`, so none is statted (docs/design.md#a-quiet-tree-needs-no-link-revalidation). With
   * a watch of its own, only the directories it does not vouch for are statted, and those its events
   * name are read again (docs/design.md#a-watched-tree-needs-no-link-stats).
   */
  private async revalidate(
    last: Remembered,
    fs: FileSystem & Required<Pick<FileSystem, 'stampMany'>>,
    run: RunScan,
    quiet: boolean,
  ): Promise<{ scan: Scan; remembered: Remembered } | undefined> {
    const rootReal = await fs.realpath(last.rootAbsolute).catch(() => undefined)
    if (rootReal !== last.rootReal) return undefined
    const where = (name: string) => (name === '.' ? rootReal : path.join(rootReal, name))
    const started = this.now()
    let watching = quiet || last.watching?.ready !== true || last.watching.closed ? undefined : last.watching
    const events = watching === undefined ? undefined : await watching.watch!.changes()
    if (watching !== undefined && events === undefined) {
      // It can no longer vouch: stats this call, and another watch from the next.
      this.unwatch(last)
      watching = undefined
    }
    if (last.watching?.closed === true) last.watching = undefined
    // The root is statted always when watched: a root replaced by another directory makes no event above it.
    const names = quiet
      ? []
      : watching === undefined
        ? [...last.dirs.keys()]
        : ['.', ...[...watching.pending].filter((name) => name !== '.')]
    const stamps = await fs.stampMany(names.map(where), { follow: false })
    const unchanged = new Set<string>()
    const changed: string[] = []
    for (const [i, name] of names.entries()) {
      const stamp = stamps[i]!
      if (stamp.kind !== 'directory') continue
      const record = last.dirs.get(name)!
      if (record.settled && stampOf(stamp) === record.stamp) unchanged.add(name)
      else changed.push(name)
    }
    // Directories not trusted as remembered: read again (one level), or walked whole (`dropped`).
    let suspect: ((name: string) => boolean) | undefined
    let dropped: Set<string> | undefined
    if (watching !== undefined) {
      const root = last.dirs.get('.')!.stamp.split(' ')
      const now = stamps[0]!
      if (now.kind !== 'directory' || now.dev !== root[0] || now.ino !== root[1]) return undefined
      const marked = watchedChanges(last, events!, watching, changed)
      dropped = marked.dropped
      const read = new Set(changed)
      const pending = watching.pending
      if (changed.length > 0 || dropped.size > 0 || unchanged.size < names.length)
        suspect = (name) => marked.dropped.has(name) || (pending.has(name) ? !unchanged.has(name) : read.has(name))
    } else if (unchanged.size < names.length) suspect = (name) => !unchanged.has(name)
    const fresh = new Map<string, DirRecord>()
    const targets = new Map<string, TargetInfo | undefined>()
    const read = async (starts: readonly string[], depth: 'all' | 'one', at: number): Promise<boolean> => {
      const scan = await run(starts, depth)
      if (typeof scan === 'string' || !scan.complete || scan.dirs === undefined) return false
      const records = this.readRecords(scan, depth, at)
      if (!starts.every((start) => records.has(start))) return false
      for (const [name, record] of records) fresh.set(name, record)
      for (const link of scan.links) targets.set(link.name, link.target)
      return true
    }
    // Every directory unchanged is the same tree: its map stands as it is (a new one each call, for a
    // tree of 5,000 directories, kept a warm process's collector busy).
    let dirs = last.dirs
    const walked: string[] = []
    if (suspect !== undefined) {
      const stale = suspect
      if (changed.length > 0 && !(await read(changed, 'one', started))) return undefined
      const known = (name: string) => fresh.get(name) ?? (stale(name) ? undefined : last.dirs.get(name))
      const first = assemble(['.'], known)
      if (first.missing.includes('.')) return undefined
      dirs = first.found
      if (first.missing.length > 0) {
        // Directories new since the last scan (or back again): walked whole.
        if (!(await read(first.missing, 'all', this.now()))) return undefined
        // A walk lists every directory below its starts, each read: none is missing.
        for (const [name, record] of assemble(first.missing, (name) => fresh.get(name)).found) {
          dirs.set(name, record)
          walked.push(name)
        }
      }
    }
    if (watching !== undefined) {
      if (!(await this.rewatch(last, watching, { dirs, unchanged, changed, walked, dropped: dropped! }))) this.unwatch(last)
    } else if (last.watching !== undefined && dirs !== last.dirs) {
      last.watching.stale = true
      // A directory gone is not statted again: one made later by its name is new, found by its parent.
      for (const name of last.watching.pending) if (!dirs.has(name)) last.watching.pending.delete(name)
    }
    const links: ScannedLink[] = []
    const unstated: Array<{ name: string; text: string | undefined }> = []
    for (const record of dirs.values()) {
      for (const link of record.links) {
        // A link in a directory read this call has what find reported of it now.
        const target = fresh.has(path.posix.dirname(link.name)) ? targets.get(link.name) : undefined
        if (target !== undefined) links.push({ name: link.name, target })
        else if (leadsToKnownDirectory(link, dirs, rootReal)) links.push({ name: link.name, target: { type: 'd', text: link.text } })
        else unstated.push(link)
      }
    }
    // A remembered link's text cannot have changed (a link is replaced, never rewritten), but where it leads can.
    const followed =
      unstated.length === 0
        ? []
        : await fs.stampMany(
            unstated.map((link) => where(link.name)),
            { follow: true },
          )
    for (const [i, link] of unstated.entries())
      links.push({ name: link.name, target: { type: TYPE_OF[followed[i]!.kind], text: link.text } })
    return {
      scan: { links: sortedLinks(links), workdir: last.workdir, complete: true },
      remembered: { ...last, dirs, size: sizeOf(dirs) },
    }
  }

  /**
   * Matches the watches to the directories after a watched revalidation: a directory walked whole (it
   * may be another inode by the same name), or below a dropped one, gets a new watch and is pending;
   * one statted unchanged, or read again under its watch, is vouched for from now on; one gone loses
   * its watch.
   */
  private async rewatch(
    last: Remembered,
    watching: Watching,
    done: { dirs: Map<string, DirRecord>; unchanged: Set<string>; changed: string[]; walked: string[]; dropped: Set<string> },
  ): Promise<boolean> {
    const { dirs, unchanged, changed, walked, dropped } = done
    // Proven current after its watch was in place; one that has no watch stays pending.
    for (const name of [...unchanged, ...changed]) if (watching.watched.has(name)) watching.pending.delete(name)
    if (dirs === last.dirs && !watching.stale) return true
    watching.stale = false
    // One that has no watch and is gone: a directory made later by its name is new, found by its parent.
    for (const name of watching.pending) if (!dirs.has(name)) watching.pending.delete(name)
    const under = (name: string) => {
      for (const top of dropped) if (name === top || name.startsWith(`${top}/`)) return true
      return false
    }
    const gone: string[] = []
    const rewalked = new Set(walked)
    for (const name of watching.watched) if (!dirs.has(name) || under(name) || rewalked.has(name)) gone.push(name)
    // path.join keeps the root itself as it is: `.` adds nothing.
    const where = (name: string) => path.join(last.rootReal, name)
    watching.watch!.remove(gone.map(where))
    for (const name of gone) {
      watching.watched.delete(name)
      watching.pending.delete(name)
    }
    const added: string[] = []
    for (const name of dirs.keys()) if (!watching.watched.has(name)) added.push(name)
    // A mount found below the tree since the watch began may change without an event here: stats, as before.
    const device = dirs.get('.')!.stamp.split(' ')[0]
    if (added.some((name) => dirs.get(name)!.stamp.split(' ')[0] !== device)) return false
    for (const name of added) {
      watching.pending.add(name)
      watching.watched.add(name)
    }
    for (const unwatched of await watching.watch!.add(added.map(where))) watching.watched.delete(nameIn(last.rootReal, unwatched))
    return true
  }

  /**
   * The directories a scan read, each with what it held. In a scan of one level only the starts (depth
   * 0) were read; in a walk, every directory it visited. `started` is when the scan began: a change at
   * or after `settleMs` before it could share its timestamp with a stamp taken during the scan.
   */
  private readRecords(scan: Scan, depth: 'all' | 'one', started: number): Map<string, DirRecord> {
    const settledBefore = BigInt(started - this.settleMs) * 1_000_000n
    const records = new Map<string, DirRecord>()
    for (const dir of scan.dirs!) {
      if (depth === 'all' || dir.depth === 0)
        records.set(dir.name, { stamp: dir.stamp, settled: dir.changedNs < settledBefore, links: [], dirs: [] })
    }
    // Entries below a start go to their directory; a start is its parent's entry only where the parent was read.
    for (const dir of scan.dirs!) if (dir.depth > 0) records.get(path.posix.dirname(dir.name))?.dirs.push(dir.name)
    for (const link of scan.links) records.get(path.posix.dirname(link.name))?.links.push({ name: link.name, text: link.target?.text })
    return records
  }
}

/** What find's `%Y` would have said of a target, from a stat that follows the link. */
const TYPE_OF: Record<PathStamp['kind'], string> = {
  directory: 'd',
  file: 'f',
  // A FIFO, socket or device: find names each (`p`, `s`, ...); the plan only asks whether it is a directory.
  other: 'p',
  // stat follows links: a link never comes back, but a kind is owed every key.
  link: 'l',
  missing: 'N',
  loop: 'L',
  unknown: '?',
}

/**
 * True when a remembered link's text leads, as the kernel would resolve it, to a directory this call
 * proved is one: every directory in `dirs` is real (a walk does not enter links) and was found from
 * the root down, so a target whose resolved path is one of them is that directory. A `..` after a name
 * could climb out of a link, so such a text is left to a stat, as is any target elsewhere (a pnpm
 * store's 10,000 packages need none).
 */
function leadsToKnownDirectory(
  link: { name: string; text: string | undefined },
  dirs: ReadonlyMap<string, DirRecord>,
  rootReal: string,
): boolean {
  if (link.text === undefined) return false
  const parts = link.text.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.some((part, i) => part === '..' && i > 0 && parts[i - 1] !== '..')) return false
  const relative = path.relative(rootReal, path.resolve(rootReal, path.posix.dirname(link.name), link.text))
  return dirs.has(relative === '' ? '.' : relative)
}

/**
 * What a watch's events since the last search mean for `last`'s directories: each directory an event
 * came from is read again (one level, added to `changed`); a directory an event names as an entry, or
 * of itself (it was made, removed, renamed or replaced, and its watches may follow an inode now
 * elsewhere), is `dropped`, walked whole, and its parent read again. A pending directory whose stamp
 * moved drops its subdirectories too, whose watches saw nothing while it was unproven.
 */
function watchedChanges(last: Remembered, events: WatchedChanges, watching: Watching, changed: string[]): { dropped: Set<string> } {
  const dropped = new Set<string>()
  const touched = new Set<string>(changed)
  const drop = (name: string) => {
    dropped.add(name)
    touched.add(path.posix.dirname(name))
  }
  for (const name of changed) if (watching.pending.has(name)) for (const child of last.dirs.get(name)!.dirs) drop(child)
  for (const [where, entries] of events) {
    const name = nameIn(last.rootReal, where)
    const record = last.dirs.get(name)
    // A watch removed since its event, or a directory no longer remembered.
    if (record === undefined || !watching.watched.has(name)) continue
    touched.add(name)
    if (entries === 'many') {
      for (const child of record.dirs) drop(child)
      continue
    }
    // libuv names an event of the watched directory itself by its last part; the root's own are its stat's.
    const own = path.posix.basename(where)
    for (const entry of entries) {
      if (entry === own && name !== '.') drop(name)
      const child = name === '.' ? entry : `${name}/${entry}`
      if (last.dirs.has(child)) drop(child)
    }
  }
  const under = (name: string) => {
    for (const top of dropped) if (name === top || name.startsWith(`${top}/`)) return true
    return false
  }
  changed.length = 0
  for (const name of touched) if (last.dirs.has(name) && !under(name)) changed.push(name)
  return { dropped }
}

/** Settles when `work` does, however it ends, or when `signal` aborts first. */
async function settledOrAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  const settled = work.then(noop, noop)
  if (signal.aborted) return
  let stop!: () => void
  const aborted = new Promise<void>((resolve) => (stop = resolve))
  signal.addEventListener('abort', stop, { once: true })
  await Promise.race([settled, aborted])
  signal.removeEventListener('abort', stop)
}

function noop(): void {}

/** A directory's name from the root (`.` for the root) from its absolute path below `rootReal`. */
export function nameIn(rootReal: string, where: string): string {
  if (where === rootReal) return '.'
  // Only `/` itself ends in a slash: its children's names follow it directly.
  return where.slice(rootReal.endsWith('/') ? rootReal.length : rootReal.length + 1)
}

/**
 * The directories below `starts`, each with the record `known` gives it, and those it gives none:
 * from the top down, so a directory below one that is gone or is a link now is never reached.
 */
function assemble(
  starts: readonly string[],
  known: (name: string) => DirRecord | undefined,
): { found: Map<string, DirRecord>; missing: string[] } {
  const found = new Map<string, DirRecord>()
  const missing: string[] = []
  const stack = [...starts]
  while (stack.length > 0) {
    const name = stack.pop()!
    const record = known(name)
    if (record === undefined) {
      missing.push(name)
      continue
    }
    found.set(name, record)
    // One push each: a directory may hold more subdirectories than a spread passes as arguments.
    for (const dir of record.dirs) stack.push(dir)
  }
  return { found, missing }
}

function sizeOf(dirs: ReadonlyMap<string, DirRecord>): number {
  let size = dirs.size
  for (const record of dirs.values()) size += record.links.length
  return size
}

/** Links by name: a remembered scan and a walk list them alike. */
function sortedLinks(links: ScannedLink[]): ScannedLink[] {
  // Names are unique: no two compare equal.
  return links.sort((a, b) => (a.name < b.name ? -1 : 1))
}
