// The link scan remembered between calls: each root's directories and links, revalidated by a stat per directory.
import path from 'node:path'
import type { FileSystem, PathStamp } from '@dsh/core'

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

/** One root's last scan. */
interface Remembered {
  workdir: string
  rootAbsolute: string
  rootReal: string
  dirs: Map<string, DirRecord>
  size: number
  /** The quiet mark taken before the scan that read `dirs`, when there was one. */
  mark: string | undefined
}

// Roots remembered at once; the least recently searched goes first.
const MAX_ROOTS = 16
// Directories and links remembered over every root: a few hundred bytes each, so tens of MB at most.
const MAX_ENTRIES = 200_000

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

  constructor(
    /** How long after a change a directory's stamp is not trusted (`linkScanSettleMs`). */
    readonly settleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many roots and entries are remembered. */
  get size(): { roots: number; entries: number } {
    return { roots: this.roots.size, entries: this.entries }
  }

  /**
   * The links below `root` (as the model gave it), from the remembered scan of `key` when it still
   * holds, else from a walk, which is remembered when it read everything.
   */
  async scan(
    key: string,
    root: string,
    fs: FileSystem & Required<Pick<FileSystem, 'stampMany'>>,
    run: RunScan,
    quiet?: QuietMark,
  ): Promise<Scan | string> {
    // Taken before anything is read: a change after it moves the next one.
    const mark = await quiet?.()
    const last = this.take(key)
    if (last !== undefined) {
      const warm = await this.revalidate(last, fs, run, mark !== undefined && mark === last.mark)
      if (warm !== undefined) {
        this.keep(key, { ...warm.remembered, mark })
        return warm.scan
      }
    }
    const started = this.now()
    const cold = await run(['.'], 'all')
    if (typeof cold === 'string' || !cold.complete || cold.dirs === undefined) return cold
    const rootAbsolute = path.resolve(cold.workdir, root)
    const rootReal = await fs.realpath(rootAbsolute).catch(() => undefined)
    const records = this.readRecords(cold, 'all', started)
    if (rootReal !== undefined && records.has('.'))
      this.keep(key, { workdir: cold.workdir, rootAbsolute, rootReal, dirs: records, size: sizeOf(records), mark })
    return { links: sortedLinks(cold.links), workdir: cold.workdir, complete: true }
  }

  /** The remembered scan of `key`, taken out (two calls at once each revalidate their own, or walk). */
  private take(key: string): Remembered | undefined {
    const last = this.roots.get(key)
    if (last === undefined) return undefined
    this.roots.delete(key)
    this.entries -= last.size
    return last
  }

  private keep(key: string, remembered: Remembered): void {
    if (remembered.size > MAX_ENTRIES) return
    this.entries += remembered.size
    this.roots.set(key, remembered)
    for (const [oldest, kept] of this.roots) {
      if (this.entries <= MAX_ENTRIES && this.roots.size <= MAX_ROOTS) break
      this.roots.delete(oldest)
      this.entries -= kept.size
    }
  }

  /**
   * The scan as the tree stands, from `last` and the directories that changed since, or undefined when
   * it cannot be proven (the root moved, a directory read again is gone or is a link now, a scan failed):
   * the caller walks the tree. `quiet`: the index's watcher proved no directory changed since the scan
   * that read `last`, so none is statted (docs/design.md#a-quiet-tree-needs-no-link-revalidation).
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
    const names = quiet ? [] : [...last.dirs.keys()]
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
    if (unchanged.size < names.length) {
      if (changed.length > 0 && !(await read(changed, 'one', started))) return undefined
      const known = (name: string) => fresh.get(name) ?? (unchanged.has(name) ? last.dirs.get(name) : undefined)
      const first = assemble(['.'], known)
      if (first.missing.includes('.')) return undefined
      dirs = first.found
      if (first.missing.length > 0) {
        // Directories new since the last scan (or back again): walked whole.
        if (!(await read(first.missing, 'all', this.now()))) return undefined
        // A walk lists every directory below its starts, each read: none is missing.
        for (const [name, record] of assemble(first.missing, (name) => fresh.get(name)).found) dirs.set(name, record)
      }
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
