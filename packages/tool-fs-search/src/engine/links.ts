// Symbolic links: which a search follows (inside the roots), and which it names instead of following.
import path from 'node:path'
import { AccessError, FsError, type AccessPolicy, type BashRunResult, type FileSystem, type ToolExecContext } from '@dsh/core'
import { LOOKUP } from './probe/script.js'
import { exclusionArgs } from './access.js'
import { explicitPath } from './display-path.js'
import { quoteName } from './escape-controls.js'
import { nameSome } from './footers.js'
import { runSearchCommand } from './run.js'
import { shellCommand } from './shell-quote.js'
import { VCS_EXCLUDES } from './vcs.js'
import type { SearchContext } from './context.js'
import type { LinkScanMemory, QuietMark, Scan, ScannedDir, ScannedLink, TargetInfo } from './link-scan-memory.js'

/** What a search does with symbolic links (docs/design.md#symbolic-links), in words every tool description uses. */
export const LINKS =
  "It follows a symbolic link that stays inside the workspace, showing what lies behind it under the link's own path; a link that leads outside, is broken or loops is not followed, and a note names it"

/** Why a link was not followed. */
export type SkipReason = 'outside' | 'broken' | 'loop'

/** A link the search did not follow, by its path from the search root. */
export interface SkippedLink {
  path: string
  why: SkipReason
}

/**
 * What a search does with the links below its root (docs/design.md#symbolic-links). `follow` adds
 * rg's `--follow`; `excludes` are rg globs (without the "!"), matched exactly, that keep it from
 * every link it must not follow; `deny` are deny-rule globs (case-insensitive, as all deny rules) for
 * paths below a followed link; `skipped` are named in a note, and `unfollowed` says why no link was
 * followed at all when that is so.
 */
export interface LinkPlan {
  follow: boolean
  /** The links followed, by path from the search root: what a content index must read whole. */
  followed: Array<{ path: string; directory: boolean }>
  excludes: string[]
  deny: string[]
  skipped: SkippedLink[]
  unfollowed?: string
}

/** A search with no links below its root, or one that follows none. */
export const NO_LINKS: LinkPlan = { follow: false, followed: [], excludes: [], deny: [], skipped: [] }

// Enough for a pnpm tree of thousands of packages; past it, no link is followed and the note says so.
const MAX_LINKS = 50_000
// Links within links within links: pnpm nests two or three deep; forty is a tree built to loop.
const MAX_DEPTH = 40
// bash -c takes its command as one argument, which Linux caps at 128 KiB: scans and exclusions stay well below.
const MAX_SCRIPT_BYTES = 96 * 1024
// A scan lists names only; this much is 10,000s of them.
const MAX_SCAN_BYTES = 16 * 1024 * 1024
// Links judged side by side: enough to keep libuv's file system threads busy, few enough to bound open calls.
const JUDGED_AT_ONCE = 16
// The scan's exit status when the executor has no find.
const EXIT_NO_FIND = 120

/** Where a link leads, resolved: what the walk would reach through it. */
interface Resolved {
  /** The link's path from the search root, '/'-separated, no `./`. */
  path: string
  real: string
  directory: boolean
  /** Deny globs below the target, relative to it. */
  deny: string[]
}

/**
 * Plans the links below a directory `root` (relative to the workdir, as the model gave it). It lists
 * every link there with find in the executor, resolves each through the file system, asks the access
 * policy (or, without one, whether it stays inside the session cwd or the searched root) where each
 * may lead, lists the links inside each followed directory the same way, and stops at a loop. When
 * there are links but no file system to resolve them, or past the caps, no link is followed and the
 * plan says so. `rootExcludes` are the search root's own deny exclusions: a rule for any depth among
 * them is not repeated below each link.
 */
export async function planLinks(
  ctx: SearchContext,
  exec: ToolExecContext,
  root: string,
  fs: FileSystem | undefined,
  access: AccessPolicy | undefined,
  quiet?: QuietMark,
  rootExcludes: readonly string[] = [],
): Promise<LinkPlan> {
  if (!(await mayHoldLinks(fs, exec, root))) return NO_LINKS
  const first = await firstScan(ctx, exec, root, fs, quiet)
  if (typeof first === 'string') return { ...NO_LINKS, unfollowed: first }
  if (first.links.length === 0) return NO_LINKS
  if (fs === undefined) return { ...NO_LINKS, unfollowed: 'no file system provider is loaded to resolve them' }
  const { workdir } = first
  const cwd = exec.agent?.session.header.cwd ?? workdir
  const rootAbsolute = path.resolve(workdir, root)
  const rootResolved = await fs.realpath(rootAbsolute).then(
    (real) => ({ real, known: true }),
    () => ({ real: rootAbsolute, known: false }),
  )
  const rootReal = rootResolved.real
  const inside = access === undefined ? await ownRoots(fs, workdir, rootReal) : undefined
  const followed = new Map<string, string>()
  const plan: LinkPlan = { follow: false, followed: [], excludes: [], deny: [], skipped: [] }
  const denied = new Set<string>()
  const rootWide = new Set(rootExcludes)
  const walked = first.links.map((link) => link.name).sort()
  const targets = new Map<string, TargetInfo>()
  const note = (links: readonly ScannedLink[]) => {
    for (const link of links) if (link.target !== undefined) targets.set(link.name, link.target)
  }
  note(first.links)
  // Every link in the walked tree, when the walk read every directory and find reported targets: a
  // target path none of whose parts is one of them is already a real path (see resolvedInMemory).
  const known = rootResolved.known && first.complete && targets.size === first.links.length ? new Set(walked) : undefined
  let starts: string[] = []
  let seen = 0
  for (let depth = 0; depth === 0 || starts.length > 0; depth++) {
    let found = first.links.map((link) => link.name)
    if (depth > 0) {
      // A target inside the tree the first scan walked has its links listed already, under its real
      // path: a pnpm store's 10,000 packages need no second walk. Only targets elsewhere are scanned.
      const relatives = starts.map((link) => path.relative(rootReal, followed.get(link)!))
      const listed = starts.map((link, i) => linksListedBelow(walked, link, relatives[i]!))
      for (const [i, names] of listed.entries()) {
        // What find reported of a link reached through a followed one is what it reported at its real path.
        for (const name of names ?? []) {
          const target = targets.get(`${relatives[i]}${name.slice(starts[i]!.length)}`)
          if (target !== undefined) targets.set(name, target)
        }
      }
      const unlisted = starts.filter((_, i) => listed[i] === undefined)
      const scanned = unlisted.length === 0 ? { links: [] } : await scanLinks(ctx, exec, root, unlisted)
      if (typeof scanned === 'string') return { ...NO_LINKS, unfollowed: scanned }
      note(scanned.links)
      found = [...listed.flatMap((names) => names ?? []), ...scanned.links.map((link) => link.name)]
    }
    seen += found.length
    if (seen > MAX_LINKS) return { ...NO_LINKS, unfollowed: `there are more than ${MAX_LINKS.toLocaleString('en')} of them` }
    if (depth >= MAX_DEPTH && found.length > 0) return { ...NO_LINKS, unfollowed: `they nest more than ${MAX_DEPTH} deep` }
    const next: string[] = []
    // One level's links lie below links of earlier levels only (find does not enter a link), so their
    // verdicts depend on nothing this loop adds to `followed` and may be reached side by side.
    const context: JudgeContext = { fs, access, cwd, rootAbsolute, rootReal, inside, followed, exec, targets, known, ancestors: new Map() }
    const verdicts = await mapInOrder(found, JUDGED_AT_ONCE, (link) => judge(link, context))
    for (const [index, link] of found.entries()) {
      const verdict = verdicts[index]!
      if ('why' in verdict) {
        plan.excludes.push(exactGlob(link))
        if (verdict.why !== 'denied') plan.skipped.push({ path: link, why: verdict.why })
        continue
      }
      plan.follow = true
      plan.followed.push({ path: link, directory: verdict.directory })
      if (!verdict.directory) continue
      followed.set(link, verdict.real)
      next.push(link)
      for (const glob of verdict.deny) {
        const rebased = below(link, glob, rootWide)
        // Each once: a rule for any depth comes back for each of 10,000 links into a pnpm store.
        if (rebased !== undefined && !denied.has(rebased)) {
          denied.add(rebased)
          plan.deny.push(rebased)
        }
      }
    }
    starts = next
  }
  if (scriptBytes(plan) > MAX_SCRIPT_BYTES) return { ...NO_LINKS, unfollowed: 'too many of them lead where the search may not go' }
  return plan
}

/**
 * The links below a followed directory link, as paths through it, when its target (`relative`, from
 * the root's real path) lies in the walk the first scan made: inside the root and in no VCS directory,
 * which the scan prunes. `walked` is that scan's names, sorted. Undefined when the target must be scanned.
 */
export function linksListedBelow(walked: readonly string[], link: string, relative: string): string[] | undefined {
  const segments = relative.split('/')
  // path.relative gives '' for the root itself (a loop, never followed) and '..' first for a target outside it.
  if (relative === '' || segments[0] === '..') return undefined
  if (segments.some((segment) => (VCS_EXCLUDES as readonly string[]).includes(segment))) return undefined
  const prefix = `${relative}/`
  let low = 0
  let high = walked.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (walked[mid]! < prefix) low = mid + 1
    else high = mid
  }
  const names: string[] = []
  for (let i = low; i < walked.length && walked[i]!.startsWith(prefix); i++) names.push(`${link}/${walked[i]!.slice(prefix.length)}`)
  return names
}

/**
 * `map` of `items` through an async `step`, at most `limit` at a time, results in the items' order.
 * Each link costs a few file system calls; one at a time, 10,000 links waited on each call in turn.
 */
async function mapInOrder<T, R>(items: readonly T[], limit: number, step: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await step(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** False when the file system says the root is not a directory: a file searched by name has nothing below it. */
async function mayHoldLinks(fs: FileSystem | undefined, exec: ToolExecContext, root: string): Promise<boolean> {
  const cwd = exec.agent?.session.header.cwd
  if (fs === undefined || cwd === undefined) return true
  try {
    return (await fs.stat(path.resolve(cwd, root))).kind === 'directory'
  } catch (error) {
    if (!(error instanceof FsError)) throw error
    // A missing root: the search says so in its own words.
    return false
  }
}

/** Without a policy, a link may lead anywhere inside the session cwd or the searched root. */
async function ownRoots(fs: FileSystem, cwd: string, rootReal: string): Promise<string[]> {
  const cwdReal = await fs.realpath(cwd).catch(() => cwd)
  return [cwdReal, rootReal]
}

interface JudgeContext {
  fs: FileSystem
  access: AccessPolicy | undefined
  cwd: string
  rootAbsolute: string
  rootReal: string
  inside: string[] | undefined
  /** Followed directory links so far: path from the root to real path. */
  followed: Map<string, string>
  exec: ToolExecContext
  /** What find reported of each link's target, by the link's path from the root. */
  targets: ReadonlyMap<string, TargetInfo>
  /** Every link below the root's real path outside VCS directories, when the first scan saw them all. */
  known: ReadonlySet<string> | undefined
  /** The real paths of the directories above a link, by its parent's path from the root (see ancestorsOf). */
  ancestors: Map<string, string[]>
}

type Verdict = Resolved | { why: SkipReason | 'denied' }

/** Whether the walk may go through `link`, and where it leads. */
async function judge(link: string, context: JudgeContext): Promise<Verdict> {
  const { fs, access } = context
  const lexical = path.resolve(context.rootAbsolute, link)
  const target = context.targets.get(link)
  let real: string | undefined
  let directory: boolean
  // find followed the link already: a missing target or a loop needs no second look.
  const unreachable = target?.type === 'N' ? 'broken' : target?.type === 'L' ? 'loop' : undefined
  if (unreachable !== undefined) return { why: (await parentShown(link, context)) ? unreachable : 'denied' }
  const inMemory = target === undefined ? undefined : resolvedInMemory(link, target, context)
  if (inMemory !== undefined) {
    real = inMemory
    directory = target!.type === 'd'
  } else {
    try {
      real = await fs.realpath(lexical)
      directory = (await fs.stat(real)).kind === 'directory'
    } catch (error) {
      if (!(error instanceof FsError)) throw error
      // Not found: the target is missing; anything else is a chain of links that never ends (ELOOP).
      const why = error.code === 'FS_NOT_FOUND' ? 'broken' : 'loop'
      return { why: (await parentShown(link, context)) ? why : 'denied' }
    }
  }
  let deny: string[] = []
  if (access !== undefined) {
    try {
      const session = context.exec.agent?.session.header.id
      deny = (
        await access.check({
          path: lexical,
          cwd: context.cwd,
          purpose: 'search',
          session,
          ...(inMemory === undefined ? {} : { realPath: real }),
        })
      ).excludeGlobs
    } catch (error) {
      if (!(error instanceof AccessError)) throw error
      if (error.code === 'ACCESS_DENIED') return { why: 'denied' }
      return { why: (await parentShown(link, context)) ? 'outside' : 'denied' }
    }
  } else if (!context.inside!.some((root) => within(root, real))) return { why: 'outside' }
  if (directory && ancestorsOf(link, context).some((ancestor) => within(real, ancestor))) return { why: 'loop' }
  return { path: link, real, directory, deny }
}

/**
 * The real path of a link's target from find's report, without a system call, when that can be proven:
 * the link's parent is a real directory (the walk reached it through no link but followed ones, whose
 * real paths are known), so its text resolved from there is real when no `..` comes after a name (it
 * could climb out of a link), and the result lies inside the walked tree with none of its parts a link
 * the walk found (or a VCS directory, which it did not walk). Undefined otherwise: the file system says.
 */
function resolvedInMemory(link: string, target: TargetInfo, context: JudgeContext): string | undefined {
  const { known, rootReal } = context
  if (known === undefined || target.text === undefined || target.type === '?') return undefined
  const parts = target.text.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.some((part, i) => part === '..' && i > 0 && parts[i - 1] !== '..')) return undefined
  const real = path.resolve(ancestorsOf(link, context).at(-1)!, target.text)
  // Both absolute and normalized, so a prefix of whole names says where it lies.
  const rootSlash = rootReal.endsWith('/') ? rootReal : `${rootReal}/`
  if (real.length <= rootSlash.length || !real.startsWith(rootSlash)) return undefined
  let walked = ''
  for (const part of real.slice(rootSlash.length).split('/')) {
    walked = walked === '' ? part : `${walked}/${part}`
    if (known.has(walked) || (VCS_EXCLUDES as readonly string[]).includes(part)) return undefined
  }
  return real
}

/**
 * True when the directory holding a link may be shown: a link in a denied directory (rg never walks
 * it) is left out unnamed, since its name is part of what the rule hides.
 */
async function parentShown(link: string, { access, cwd, rootAbsolute, exec }: JudgeContext): Promise<boolean> {
  const parent = path.dirname(link)
  if (access === undefined || parent === '.') return true
  try {
    await access.check({ path: path.resolve(rootAbsolute, parent), cwd, purpose: 'search', session: exec.agent?.session.header.id })
    return true
  } catch (error) {
    if (!(error instanceof AccessError)) throw error
    return false
  }
}

/** The real paths of the directories the walk passes through to reach `link`: the root, and each below it. */
function ancestorsOf(link: string, { rootReal, followed, ancestors }: JudgeContext): string[] {
  const parent = path.posix.dirname(link)
  // Links share parents (a pnpm node_modules holds thousands): each parent's chain is made once a level.
  let reals = ancestors.get(parent)
  if (reals !== undefined) return reals
  const segments = link.split('/').slice(0, -1)
  reals = [rootReal]
  let real = rootReal
  for (let i = 0; i < segments.length; i++) {
    const lexical = segments.slice(0, i + 1).join('/')
    real = followed.get(lexical) ?? path.join(real, segments[i]!)
    reals.push(real)
  }
  ancestors.set(parent, reals)
  return reals
}

/** True when `path` is `root` or lies below it. */
function within(root: string, path_: string): boolean {
  return path_ === root || path_.startsWith(root.endsWith('/') ? root : `${root}/`)
}

/**
 * The memory that keeps the context's link scans and the file system that revalidates them, or
 * undefined where a scan is walked every call: scans not remembered, or a file system that cannot
 * stat many paths at once (docs/design.md#the-link-scan-is-remembered).
 */
function rememberingOf(
  ctx: SearchContext,
  fs: FileSystem | undefined,
): { memory: LinkScanMemory; fs: FileSystem & Required<Pick<FileSystem, 'stampMany'>> } | undefined {
  const memory = ctx.linkScans?.()
  if (memory === undefined || fs?.stampMany === undefined) return undefined
  return { memory, fs: { ...fs, stampMany: fs.stampMany.bind(fs) } }
}

/**
 * The first scan of a search: from the root's remembered scan when the context keeps them and the file
 * system can stat many paths at once (docs/design.md#the-link-scan-is-remembered), else a walk.
 */
async function firstScan(
  ctx: SearchContext,
  exec: ToolExecContext,
  root: string,
  fs: FileSystem | undefined,
  quiet: QuietMark | undefined,
): Promise<Scan | string> {
  const remembering = rememberingOf(ctx, fs)
  if (remembering === undefined) return scanLinks(ctx, exec, root, ['.'])
  const key = `${exec.agent?.session.header.cwd ?? ''}\0${root}`
  return remembering.memory.scan(
    key,
    root,
    remembering.fs,
    (starts, depth) => scanLinks(ctx, exec, root, starts, { dirs: true, depth }),
    exec.signal,
    quiet,
  )
}

/**
 * The links below `starts` (paths from the root; a directory link as `link/`, so find enters it),
 * outside VCS directories, by find in the executor: NUL-separated names, each a path from the root.
 * With `dirs`, GNU find also reports each directory it visits, with its stamp, to the depth asked (a
 * scan whose output passes the cap with them is run again without). Returns why none can be followed
 * instead when the scan cannot be trusted.
 */
async function scanLinks(
  ctx: SearchContext,
  exec: ToolExecContext,
  root: string,
  starts: readonly string[],
  options: { dirs: boolean; depth: 'all' | 'one' } = { dirs: false, depth: 'all' },
): Promise<Scan | string> {
  const links: ScannedLink[] = []
  const dirs: ScannedDir[] = []
  let readable = options.dirs
  let workdir = ''
  let complete = true
  for (const batch of batches(starts)) {
    const bytes: Uint8Array[] = []
    let size = 0
    const scan = await runSearchCommand(ctx, exec, {
      command: scanCommand(root, batch, options),
      narrow: 'path',
      // Directories are not rg's output: their records are bounded here (MAX_SCAN_BYTES), not by rawOutputMaxBytes.
      streams: options.dirs,
      stdoutSink: (chunk) => {
        size += chunk.length
        // A copy (the executor may reuse the chunk), by memcpy: Uint8Array.from walks it byte by byte.
        if (size <= MAX_SCAN_BYTES) bytes.push(Buffer.from(chunk))
      },
    })
    const { run } = scan
    workdir = scan.workdir
    if (run.exitCode === EXIT_NO_FIND) return 'the executor has no find to list them'
    // find exits 1 for a directory it cannot read, which rg cannot read either: the rest is listed.
    if (run.exitCode !== 0 && run.exitCode !== 1) return `listing them failed (find exited ${run.exitCode ?? run.signal})`
    if (size > MAX_SCAN_BYTES) {
      // The directories filled it: the links alone are what the cap is for.
      return options.dirs && options.depth === 'all'
        ? scanLinks(ctx, exec, root, starts)
        : `there are more than ${MAX_LINKS.toLocaleString('en')} of them`
    }
    complete &&= run.exitCode === 0
    const found = { dirs: [] as ScannedDir[], readable: true }
    const decoded = decodeScan(Buffer.concat(bytes), found)
    if (decoded === undefined) return 'a link name is not valid UTF-8, which rg globs cannot exclude exactly'
    // One push each: a big tree lists more than a spread passes as arguments (about 120,000).
    for (const link of decoded) links.push(link)
    for (const dir of found.dirs) dirs.push(dir)
    readable &&= found.readable && found.dirs.length > 0
  }
  return { links, workdir, complete, ...(readable ? { dirs } : {}) }
}

/**
 * Takes the first scan of `root` into the context's memory ahead of any search, as that search's
 * first scan would (docs/design.md#a-warm-process-loads-its-index-first): nothing is judged or
 * followed, and nothing is walked where scans are not remembered or the file system cannot stat many
 * paths at once, since no memory would keep that walk.
 */
export async function rememberLinkScan(
  ctx: SearchContext,
  exec: ToolExecContext,
  root: string,
  fs: FileSystem | undefined,
  quiet: QuietMark | undefined,
): Promise<void> {
  const remembering = rememberingOf(ctx, fs)
  if (remembering === undefined) return
  if (!(await mayHoldLinks(remembering.fs, exec, root))) return
  // A scan that cannot be kept (a string saying why) is left to the first search, which says so.
  await firstScan(ctx, exec, root, fs, quiet)
}

/** Start points in runs whose script stays below the command-line cap. */
function batches(starts: readonly string[]): string[][] {
  const runs: string[][] = [[]]
  let bytes = 0
  for (const start of starts) {
    const size = Buffer.byteLength(start) + 8
    if (bytes + size > MAX_SCRIPT_BYTES && runs.at(-1)!.length > 0) {
      runs.push([])
      bytes = 0
    }
    runs.at(-1)!.push(start)
    bytes += size
  }
  return runs
}

/** The record a GNU find scan starts with: it prints each link as two records, `%Y%p` and `%l`. */
const GNU_SCAN = 'G'

/**
 * The scan script: find from inside the root, its absolute path looked up as the probes do. A find
 * with `-printf` (GNU) also reports each target's type and the link's text, which spares a system call
 * or two a link (docs/design.md#symbolic-links), and with `dirs` each directory with its depth and
 * stamp (docs/design.md#the-link-scan-is-remembered); any other prints names. The C locale makes its
 * name tests byte comparisons (a third of the scan's time in C.UTF-8, measured).
 */
export function scanCommand(
  root: string,
  starts: readonly string[],
  options: { dirs: boolean; depth: 'all' | 'one' } = { dirs: false, depth: 'all' },
): string {
  const prune = VCS_EXCLUDES.flatMap((name, i) => [...(i === 0 ? [] : ['-o']), '-name', name])
  const points = starts.map((start) => (start === '.' ? '.' : options.dirs ? `./${start}` : `./${start}/`))
  const depth = options.depth === 'one' ? ' -maxdepth 1' : ''
  const walk = `LC_ALL=C "$dsh_path" "$@"${depth} '(' ${shellCommand(prune)} ')' -prune -o`
  const gnu = options.dirs
    ? `${walk} '(' -type l -printf '%Y%p\\0%l\\0' ')' -o '(' -type d -printf '/%d %D %i %T@ %C@ %p\\0' ')' </dev/null`
    : `${walk} -type l -printf '%Y%p\\0%l\\0' </dev/null`
  return [
    LOOKUP,
    `dsh_lookup find || exit ${EXIT_NO_FIND}`,
    `cd -- ${shellCommand([explicitPath(root)])} || exit 1`,
    `set -- ${shellCommand(points)}`,
    `if "$dsh_path" . -maxdepth 0 -printf '' </dev/null 2>/dev/null; then printf '${GNU_SCAN}\\0'; ${gnu}`,
    `else ${walk} -type l -print0 </dev/null; fi`,
  ].join('\n')
}

/**
 * A scan's NUL-separated records as links (paths from the root: no `./`, no doubled `/`), or undefined
 * when a link's name is not UTF-8. A link's text that is not UTF-8 leaves its target to the file
 * system. GNU directory records (`/` first: no `%Y` type is one) go to `found` when it is given; one
 * that cannot be read marks it unreadable.
 */
export function decodeScan(bytes: Buffer, found?: { dirs: ScannedDir[]; readable: boolean }): ScannedLink[] | undefined {
  const records: Buffer[] = []
  for (let start = 0; start < bytes.length;) {
    const end = bytes.indexOf(0, start)
    records.push(bytes.subarray(start, end === -1 ? bytes.length : end))
    start = end === -1 ? bytes.length : end + 1
  }
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const utf8 = (record: Buffer): string | undefined => {
    try {
      return decoder.decode(record)
    } catch {
      return undefined
    }
  }
  const name = (printed: string) => printed.replace(/\/{2,}/g, '/').replace(/^\.\//, '')
  const links: ScannedLink[] = []
  if (records[0]?.toString('latin1') === GNU_SCAN) {
    for (let i = 1; i < records.length; i += 2) {
      if (records[i]![0] === DIR_RECORD) {
        if (found !== undefined) {
          const dir = decodeDir(utf8(records[i]!), name)
          if (dir === undefined) found.readable = false
          else found.dirs.push(dir)
        }
        i--
        continue
      }
      if (i + 1 >= records.length) break
      const printed = utf8(records[i]!)
      if (printed === undefined) return undefined
      links.push({ name: name(printed.slice(1)), target: { type: printed.slice(0, 1), text: utf8(records[i + 1]!) } })
    }
    return links
  }
  for (const record of records) {
    const printed = utf8(record)
    if (printed === undefined) return undefined
    if (printed !== '') links.push({ name: name(printed) })
  }
  return links
}

// The first byte of a directory's record: `/`, which no `%Y` type is.
const DIR_RECORD = 0x2f

/** A directory record, `/%d %D %i %T@ %C@ %p`, or undefined when its name is not UTF-8 or a field is malformed. */
function decodeDir(record: string | undefined, name: (printed: string) => string): ScannedDir | undefined {
  const fields = /^\/(\d+) (\d+) (\d+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (.*)$/s.exec(record ?? '')
  if (fields === null) return undefined
  const [, depth, dev, ino, mtime, ctime, printed] = fields
  const mtimeNs = nanoseconds(mtime!)
  const ctimeNs = nanoseconds(ctime!)
  return {
    name: name(printed!),
    depth: Number(depth),
    stamp: `${dev} ${ino} ${mtimeNs} ${ctimeNs}`,
    changedNs: mtimeNs > ctimeNs ? mtimeNs : ctimeNs,
  }
}

/** find's `%T@` (seconds, a fraction of up to ten digits) in nanoseconds, as Node's `mtimeNs` gives them. */
function nanoseconds(seconds: string): bigint {
  const [whole, fraction = ''] = seconds.split('.')
  const negative = whole!.startsWith('-')
  const ns = BigInt(whole!) * 1_000_000_000n + (negative ? -1n : 1n) * BigInt(fraction.padEnd(9, '0').slice(0, 9))
  return ns
}

/** An rg glob that matches exactly the path from the search root: anchored, every glob character escaped. */
export function exactGlob(relative: string): string {
  return `/${relative.replace(/[\\*?[\]{}!]/g, (char) => `\\${char}`)}`
}

/**
 * A deny glob, relative to a followed link's target, as a glob from the search root through the link;
 * undefined when the search root's own exclusions (`rootWide`) already apply it there.
 */
function below(link: string, glob: string, rootWide: ReadonlySet<string>): string | undefined {
  const anchored = glob.startsWith('/')
  const unanchoredName = !anchored && !glob.slice(0, -1).includes('/')
  // A rule for a name at any depth already applies everywhere; the rest are anchored under the link.
  if (unanchoredName) return glob
  // A rule for any depth (`**/.env`) that the search root's own exclusions hold applies below the link already.
  if (glob.startsWith('**/') && rootWide.has(glob)) return undefined
  return `${exactGlob(link)}${anchored ? glob : `/${glob}`}`
}

function scriptBytes(plan: LinkPlan): number {
  return [...plan.excludes, ...plan.deny].reduce((sum, glob) => sum + Buffer.byteLength(glob) + 12, 0)
}

/**
 * The exclusions a search runs with: the policy's deny globs and those below followed links,
 * case-insensitive (`--iglob`), then the exact globs of the links not followed. They follow every
 * include glob, since rg obeys the later of two globs that match.
 */
export function searchExclusionArgs(deny: readonly string[], links: LinkPlan): string[] {
  return [...exclusionArgs([...deny, ...links.deny]), ...(links.follow ? links.excludes.map((glob) => `--glob=!${glob}`) : [])]
}

/** rg's `--follow` when the plan follows links. */
export function followArgs(links: LinkPlan): string[] {
  return links.follow ? ['--follow'] : []
}

const WHY: Record<SkipReason, string> = {
  outside: 'leads outside the directories this search may reach',
  broken: 'its target does not exist',
  loop: 'leads in a loop',
}

/**
 * The footer for links a search did not follow: five named with their reasons, then how many more
 * (sorted, so a page does not change with the walk's order); or why no link was followed.
 * `show` displays a path from the search root as results are shown.
 */
export function linksNote(plan: LinkPlan, show: (relative: string) => string): string | undefined {
  if (plan.unfollowed !== undefined) return `(Symbolic links were not followed: ${plan.unfollowed}.)`
  if (plan.skipped.length === 0) return undefined
  const count = plan.skipped.length === 1 ? '1 symbolic link was' : `${plan.skipped.length} symbolic links were`
  return `(${count} not followed: ${nameSome(
    plan.skipped.map(({ path: link, why }) => `${show(link)} (${WHY[why]})`),
    '; ',
  )}.)`
}

/** `show` for a note: a path from the root as the model gave it, quoted when it must be. */
export function linkDisplay(root: string): (relative: string) => string {
  return (relative) => quoteName(root === '.' ? relative : path.posix.join(root, relative))
}

/**
 * The run as if rg had not met the links the plan skips. rg's `--follow` stats a link before its
 * globs are applied, so an excluded broken link or loop still costs an error line; those lines are
 * the plan's own note, not gaps in the search. An exit 2 they alone caused becomes rg's 1, and the
 * result's own output says whether anything was found.
 */
export function withoutSkippedLinks(run: BashRunResult, plan: LinkPlan): BashRunResult {
  if (!plan.follow || plan.skipped.length === 0 || run.stderr.text === '') return run
  const named = new Set(plan.skipped.flatMap(({ path: link }) => [link, `./${link}`]))
  const lines = run.stderr.text.split('\n')
  const kept = lines.filter((line) => !named.has(skippedLinkIn(line) ?? ''))
  if (kept.length === lines.length) return run
  const text = kept.join('\n')
  const exitCode = run.exitCode === 2 && !kept.some((line) => line.startsWith('rg: ')) ? 1 : run.exitCode
  return { ...run, exitCode, stderr: { ...run.stderr, text } }
}

// rg's words for a loop it would not enter, and for a link whose target is missing or a chain of links that never ends.
const LOOP_LINE = /^rg: File system loop found: (.+) points to an ancestor /
const MISSING_LINE = /^rg: (.+): (?:No such file or directory \(os error 2\)|Symbolic link loop \(os error 40\))$/

/** The link path an rg error line names for a loop or a missing target, if it is such a line. */
function skippedLinkIn(line: string): string | undefined {
  return LOOP_LINE.exec(line)?.[1] ?? MISSING_LINE.exec(line)?.[1]
}
