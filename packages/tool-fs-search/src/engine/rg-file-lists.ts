// rg's own list of the files a grep script's walk reaches, kept while nothing it depends on changed (docs/design.md#named-candidates).
import path from 'node:path'
import type { FileSystem, PathStamp } from '@dsh/core'
import { PathSet } from './path-set.js'

/** The file system seam with the stamps a list's outside inputs are read with. */
export type StampingFs = FileSystem & Required<Pick<FileSystem, 'stampMany'>>

/** For a path from the search directory, the path rg printed for it on its walk; undefined when the walk did not reach it. */
export type Walked = (local: string) => string | undefined

interface Kept {
  /** The paths from the search directory that rg's walk reached. */
  locals: PathSet
  /** What rg printed before each of them (`./` when it walked `.`). */
  prefix: string
  /** The index's walk mark of the tree, the same before and after the walk. */
  mark: string
  /** The ignore inputs the watcher does not see, as `outsideStamps` reads them with `nested`. */
  stamps: string
  /** The directories below the search directory, on the way to a listed file, that hold a repository's `.git`. */
  nested: readonly string[]
}

/** How one list is taken: the walk mark now, the outside stamps now, the walk itself, and the repositories nested in it. */
export interface ListTaking {
  mark: (signal: AbortSignal) => Promise<string | undefined>
  /** `outsideStamps` of the search directory, with no repository nested. */
  stamps: () => Promise<string>
  /** rg's `--files --null` output after the script's `D` and NUL, or undefined when it gave none to keep. */
  walk: (signal: AbortSignal) => Promise<Buffer | undefined>
  /**
   * The repositories nested in the list's directories (`dirs`, from the search directory) and the
   * stamps of what they exclude (`nestedStamps`), none of which changed since `since` (ns since the
   * epoch); undefined when that cannot be told or there are too many to stamp at each search.
   */
  nested: (dirs: readonly string[], since: bigint) => Promise<{ dirs: string[]; stamps: string } | undefined>
}

/**
 * The lists of the last few grep scripts' walks, each under the search directory and the list
 * script (docs/design.md#named-candidates). A list is used only while the index's walk mark is the
 * one it was taken under, so no ignore file or repository in the tree changed since the build (the
 * plan walks every other change), and the ignore inputs the watcher does not see read the same; one
 * that is missing or stale is taken again after the search that found it so, in the background, one
 * walk at a time.
 */
export class RgFileLists {
  private readonly kept = new Map<string, Kept>()
  private taking: Promise<void> = Promise.resolve()
  private readonly pending = new Set<string>()

  /** `max`: lists kept at once (each holds a tree's paths); the oldest used goes first. */
  constructor(private readonly max = 4) {}

  /** Whether a list is kept under `key`, current or not. */
  holds(key: string): boolean {
    return this.kept.has(key)
  }

  /** The repositories nested in the tree of the list kept under `key`, whose exclude files its stamps cover. */
  nestedOf(key: string): readonly string[] {
    return this.kept.get(key)?.nested ?? []
  }

  /** The list kept under `key` when `mark` and `stamps` are those it was taken under, and takes it to the front. */
  walked(key: string, mark: string, stamps: string): Walked | undefined {
    const kept = this.kept.get(key)
    if (kept === undefined || kept.mark !== mark || kept.stamps !== stamps) return undefined
    this.kept.delete(key)
    this.kept.set(key, kept)
    return (local) => (kept.locals.has(local) ? kept.prefix + local : undefined)
  }

  /** Queues a walk for `key` (once while one is queued), after those before it; resolves when it is done. */
  take(key: string, how: ListTaking): Promise<void> {
    if (this.pending.has(key)) return this.taking
    this.pending.add(key)
    this.taking = this.taking.then(async () => {
      try {
        // The walk's own time limit (the configured one) is what stops it: no search waits for it.
        const kept = await takeList(how, new AbortController().signal)
        if (kept === undefined) this.kept.delete(key)
        else this.keep(key, kept)
      } catch {
        // A walk that failed leaves no list: the searches walk with the ignore file, as without one.
        this.kept.delete(key)
      } finally {
        this.pending.delete(key)
      }
    })
    return this.taking
  }

  /** Resolves when every walk queued so far is done (tests, and a process about to exit). */
  settled(): Promise<void> {
    return this.taking
  }

  private keep(key: string, kept: Kept): void {
    this.kept.delete(key)
    this.kept.set(key, kept)
    for (const old of this.kept.keys()) {
      if (this.kept.size <= this.max) break
      this.kept.delete(old)
    }
  }
}

// A file's change time comes from the kernel's coarse clock, which can be behind `Date.now()`.
export const CLOCK_SLACK_MS = 1_000

async function takeList(how: ListTaking, signal: AbortSignal): Promise<Kept | undefined> {
  const mark = await how.mark(signal)
  if (mark === undefined) return undefined
  const stamps = await how.stamps()
  // A nested repository's exclude file changed after this may or may not count in the list.
  const since = BigInt(Date.now() - CLOCK_SLACK_MS) * 1_000_000n
  const output = await how.walk(signal)
  // An ignore file changed during the walk may or may not count in the list: kept only when the mark held.
  if (output === undefined || (await how.mark(signal)) !== mark) return undefined
  const { dirs, ...list } = parseList(output)
  // Which directories hold a repository is known only from the list: what they exclude is stamped
  // after the walk, and the list is kept only if none of it changed since the walk began.
  const nested = await how.nested(dirs, since)
  if (nested === undefined) return undefined
  return { ...list, mark, stamps: nested.dirs.length === 0 ? stamps : `${stamps}\n${nested.stamps}`, nested: nested.dirs }
}

/**
 * rg's NUL-terminated paths as paths from the search directory: each raw byte a latin1 character, as
 * the index holds names. rg prints `./name` when it walks `.` and `dir/name` when it walks `dir`; a
 * list whose paths do not all share the `./` prefix or all lack it is not kept. `dirs`: every
 * directory on the way to a listed file, from the search directory (which is not one of them).
 */
export function parseList(output: Buffer): { locals: PathSet; prefix: string; dirs: string[] } {
  // rg ends each path with a NUL: bytes after the last one are no path.
  let count = 0
  for (let at = output.indexOf(0); at >= 0; at = output.indexOf(0, at + 1)) count++
  const dotSlash = (at: number) => output[at] === 0x2e && output[at + 1] === 0x2f
  const prefix = count > 0 && dotSlash(0) ? './' : ''
  const starts = new Uint32Array(count)
  const ends = new Uint32Array(count)
  const dirs = new Set<string>()
  // rg prints a directory's files together, mostly: a file in the last one's directory adds none.
  // Compared in place: a view of each path's directory cost more than the rest of the parse.
  let lastStart = 0
  let lastEnd = 0
  let from = 0
  for (let k = 0; k < count; k++) {
    const end = output.indexOf(0, from)
    if (dotSlash(from) !== (prefix === './')) throw new Error('rg printed paths from more than one root')
    const start = from + prefix.length
    starts[k] = start
    ends[k] = end
    const dirEnd = Math.max(output.lastIndexOf(0x2f, end - 1), start)
    if (dirEnd - start !== lastEnd - lastStart || output.compare(output, lastStart, lastEnd, start, dirEnd) !== 0) {
      lastStart = start
      lastEnd = dirEnd
      for (
        let at = output.toString('latin1', start, dirEnd);
        at !== '' && !dirs.has(at);
        at = at.slice(0, Math.max(0, at.lastIndexOf('/')))
      )
        dirs.add(at)
    }
    from = end + 1
  }
  return { locals: new PathSet(output, starts, ends), prefix, dirs: [...dirs] }
}

/**
 * What rg reads outside the tree that decides which files its walk of `dir` reaches, as one string
 * that changes when any of them does: the ignore files and `.git` of `dir` and of every directory
 * above it (rg reads its parents' ignore files, and `.gitignore` only inside a git repository), each
 * repository's `info/exclude`, and git's global excludes file with the configuration that names it.
 * Read through the file system seam: its stamps (inode, times) and its lines.
 */
export async function outsideStamps(
  dir: string,
  fs: StampingFs,
  nested: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const paths: string[] = []
  // From `dir` itself: its own `.git` is not in the tree the index watches (VCS directories are not).
  for (let at = dir, last = ''; at !== last; last = at, at = path.dirname(at)) {
    for (const name of ['.gitignore', '.ignore', '.rgignore']) paths.push(path.join(at, name))
    paths.push(...(await gitInputs(at, fs)))
  }
  // Without HOME (and XDG_CONFIG_HOME) git has no global configuration to read.
  const home = env['HOME'] || undefined
  const config = env['XDG_CONFIG_HOME'] || (home === undefined ? undefined : path.join(home, '.config'))
  const configs = [
    ...(home === undefined ? [] : [path.join(home, '.gitconfig')]),
    ...(config === undefined ? [] : [path.join(config, 'git', 'config')]),
  ]
  if (config !== undefined) paths.push(path.join(config, 'git', 'ignore'))
  paths.push(...configs)
  for (const file of configs) paths.push(...(await excludesFilesOf(fs, file, home)))
  const outside = shown(paths, await fs.stampMany(paths, { follow: false }))
  return nested.length === 0 ? outside : `${outside}\n${(await nestedStamps(dir, nested, fs)).text}`
}

/** Repositories nested in one tree that a list's stamps follow at most, each stamped at every search. */
export const NESTED_REPOSITORIES_MAX = 64

/**
 * The stamps of what the repositories at `nested` (directories from `dir`) exclude, as `outsideStamps`
 * adds them, and the latest change time among them (their `.git` directories aside).
 */
export async function nestedStamps(dir: string, nested: readonly string[], fs: StampingFs): Promise<{ text: string; changed: bigint }> {
  const paths: string[] = []
  for (const at of nested) paths.push(...(await gitInputs(path.join(dir, at), fs)))
  const stamps = await fs.stampMany(paths, { follow: false })
  let changed = 0n
  stamps.forEach((stamp, i) => {
    if (stamp.kind !== 'missing' && !(stamp.kind === 'directory' && path.basename(paths[i]!) === '.git')) {
      // A stamp that says nothing of its time (`unknown`) is taken as changed now.
      const at = stamp.ctimeNs === undefined ? BigInt(Date.now()) * 1_000_000n : BigInt(stamp.ctimeNs)
      if (at > changed) changed = at
    }
  })
  return { text: shown(paths, stamps), changed }
}

/** Each path with its stamp, one a line. */
function shown(paths: readonly string[], stamps: readonly PathStamp[]): string {
  return paths
    .map((file, i) => {
      const stamp = stamps[i]!
      // Of a repository's `.git` directory only that it is there counts: git writes inside it (its
      // index, its refs) on every add and commit, which changes its times and would drop the list each time.
      const seen =
        path.basename(file) === '.git' && stamp.kind === 'directory' ? { kind: stamp.kind, dev: stamp.dev, ino: stamp.ino } : stamp
      return `${file} ${JSON.stringify(seen)}`
    })
    .join('\n')
}

/**
 * What decides what the repository whose `.git` would be at `at` excludes, as rg reads it: the `.git`
 * itself and, for a directory, its `info/exclude`; for a `.git` file (a worktree's, a submodule's),
 * the directory it names (`gitdir:`), that directory's `commondir` and the `info/exclude` of the
 * directory `commondir` names, the only exclude file rg reads there (measured: with no `commondir`,
 * none). Each file read decides the next, so each is stamped: a change to any changes the stamps.
 */
async function gitInputs(at: string, fs: StampingFs): Promise<string[]> {
  const git = path.join(at, '.git')
  const inputs = [git, path.join(git, 'info', 'exclude')]
  const [stamp] = await fs.stampMany([git], { follow: false })
  if (stamp!.kind !== 'file') return inputs
  const gitdir = /^gitdir: (.*)$/.exec((await firstLine(fs, git)) ?? '')?.[1]!.trim() ?? ''
  if (gitdir === '') return inputs
  const named = path.resolve(at, gitdir)
  const commondir = (await firstLine(fs, path.join(named, 'commondir')))?.trim()
  inputs.push(path.join(named, 'commondir'))
  if (commondir !== undefined && commondir !== '') inputs.push(path.join(path.resolve(named, commondir), 'info', 'exclude'))
  return inputs
}

/** A small file's first line through the seam, or undefined when it cannot be read. */
async function firstLine(fs: FileSystem, file: string): Promise<string | undefined> {
  const read = await fs
    .readLines({ path: file, offset: 1, limit: 1, maxLineBytes: 4_096, maxBytes: 8_192, binarySniffBytes: 0 })
    .catch(() => undefined)
  return read?.lines[0]?.text
}

/** The `excludesFile` values a git configuration file names (any section: a stale list costs a walk, a missed one a wrong answer). */
async function excludesFilesOf(fs: FileSystem, file: string, home: string | undefined): Promise<string[]> {
  const read = await fs
    .readLines({ path: file, offset: 1, limit: 100_000, maxLineBytes: 4_096, maxBytes: 1 << 20, binarySniffBytes: 0 })
    .catch(() => undefined)
  const files: string[] = []
  for (const { text } of read?.lines ?? []) {
    const value = /^\s*excludesfile\s*=\s*(.*?)\s*$/i.exec(text)?.[1]
    if (value === undefined) continue
    const unquoted = value.replace(/^"(.*)"$/, '$1')
    files.push(unquoted.startsWith('~/') && home !== undefined ? path.join(home, unquoted.slice(2)) : unquoted)
  }
  return files
}

/**
 * The process's lists, as the index's watchers are one for the process (the warm server builds a
 * harness a call): a list is used only under the walk mark of this machine's index.
 */
export const PROCESS_FILE_LISTS = new RgFileLists()
