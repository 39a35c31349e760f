// watchDirectories: inotify watches on a remembered walk's directories, and a sync point that proves
// every event made before a search has arrived (docs/design.md#a-watched-tree-needs-no-link-stats).
import { lstatSync, mkdtempSync, readdirSync, rmSync, statfsSync, watch, type FSWatcher } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inotifyBursts, inotifyLimit, reportsEveryChange, type DirectoryWatch, type WatchedChanges } from '@dsh/core'

// Names one directory's events may give before only "something in it changed" is kept.
const MAX_NAMES = 256
// How long a sync marker's event may take: far above an idle loop's microseconds, below a search's patience.
const SYNC_TIMEOUT_MS = 2000
// Watches one process holds at most, over every tree, whatever the kernel allows.
const MAX_WATCHES = 100_000
// Watches added between turns of the event loop, so a host's other work waits a few ms at most.
const PER_TURN = 2000

/** What the watches of this process may hold: a share of the user's inotify watches, which editors need too. */
interface Budget {
  held: number
  max: number
}
let budget: Budget | undefined
// The process's sync directory, shared by its watches: made when the first is, removed at exit. A
// process that dies without its exit handler (a signal, a terminated worker) leaves it, and the next
// process to make one removes those of processes no longer running.
let syncDir: string | undefined
let exitHooked = false
const SYNC_DIR = /^dsh-watch-(\d+)-/
// Watches made by this process: each marker's name is its own.
let watchers = 0

/** Options for tests: the kernel's limits and calls as they can fail. */
export interface WatchOptions {
  watch?: typeof watch
  statfsType?: (path: string) => number
  /** The user's inotify watch limit. @default /proc/sys/fs/inotify/max_user_watches */
  maxUserWatches?: number
  /** The kernel's queue bound. @default /proc/sys/fs/inotify/max_queued_events */
  maxQueuedEvents?: number
  syncTimeoutMs?: number
}

/**
 * A watch for the directories of one tree at `root`, or undefined when its file system does not report
 * every change (a network or FUSE one) or the sync directory cannot be made.
 */
export function watchDirectories(root: string, options: WatchOptions = {}): Promise<DirectoryWatch | undefined> {
  // Synchronous work (a statfs, a mkdtemp, one watch): a promise for the seam, which a remote backend needs.
  return Promise.resolve(startWatch(root, options))
}

function startWatch(root: string, options: WatchOptions): DirectoryWatch | undefined {
  try {
    if (!reportsEveryChange((options.statfsType ?? ((path) => statfsSync(path).type))(root))) return undefined
  } catch {
    return undefined
  }
  // A test's limit gets a budget of its own; the kernel's is shared by every watch of the process.
  const share = (limit: number): Budget => ({ held: 0, max: Math.min(MAX_WATCHES, Math.floor(limit / 4)) })
  const held =
    options.maxUserWatches === undefined
      ? (budget ??= share(inotifyLimit('/proc/sys/fs/inotify/max_user_watches', 8192)))
      : share(options.maxUserWatches)
  const queue = options.maxQueuedEvents ?? inotifyLimit('/proc/sys/fs/inotify/max_queued_events', 16_384)
  const watcher = new Watcher(held, options.watch ?? watch, Math.floor(queue / 2), options.syncTimeoutMs ?? SYNC_TIMEOUT_MS)
  return watcher.start() ? watcher : undefined
}

class Watcher implements DirectoryWatch {
  private broken = false
  private readonly id = ++watchers
  private syncDir = ''
  private syncHandle: FSWatcher | undefined
  private readonly handles = new Map<string, FSWatcher>()
  private events = new Map<string, Set<string> | 'many'>()
  private readonly waiters = new Map<string, () => void>()
  // The thread's overflows when the watch began: any later one may have lost an event of it.
  private readonly overflows = inotifyBursts.overflows
  private syncs = 0

  constructor(
    private readonly budget: Budget,
    private readonly watchFn: typeof watch,
    private readonly burstLimit: number,
    private readonly syncTimeoutMs: number,
  ) {}

  /** Watches the process's private sync directory (made if need be); false when either fails. */
  start(): boolean {
    const dir = processSyncDir()
    if (dir === undefined) return false
    this.syncDir = dir
    try {
      this.syncHandle = this.watchFn(this.syncDir, { persistent: false }, (_event, name) => {
        this.count()
        if (name === null) this.broken = true
        else this.waiters.get(name)?.()
      })
      this.syncHandle.on('error', () => (this.broken = true))
    } catch {
      this.close()
      return false
    }
    return true
  }

  async add(paths: readonly string[]): Promise<string[]> {
    const unwatched: string[] = []
    for (const [i, path] of paths.entries()) {
      if (i > 0 && i % PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve))
      if (this.broken || this.handles.has(path) || this.budget.held >= this.budget.max) {
        if (!this.handles.has(path)) unwatched.push(path)
        continue
      }
      try {
        const handle = this.watchFn(path, { persistent: false, encoding: 'buffer' }, (_event, name) => this.record(path, name))
        handle.on('error', () => (this.broken = true))
        this.handles.set(path, handle)
        this.budget.held++
      } catch (error) {
        // Out of watches: every later add fails too, and the kernel's limit is the user's, not ours.
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') this.budget.max = this.budget.held
        unwatched.push(path)
      }
    }
    return unwatched
  }

  remove(paths: readonly string[]): void {
    for (const path of paths) {
      const handle = this.handles.get(path)
      if (handle === undefined) continue
      handle.close()
      this.handles.delete(path)
      this.budget.held--
    }
  }

  async changes(): Promise<WatchedChanges | undefined> {
    if (inotifyBursts.overflows !== this.overflows) this.broken = true
    if (this.broken) return undefined
    const name = `sync-${this.id}-${++this.syncs}`
    let timer: NodeJS.Timeout | undefined
    const arrived = new Promise<boolean>((resolve) => {
      this.waiters.set(name, () => resolve(true))
      timer = setTimeout(() => resolve(false), this.syncTimeoutMs)
    })
    const marker = join(this.syncDir, name)
    try {
      await writeFile(marker, '', { mode: 0o600, flag: 'wx' })
      if (!(await arrived)) this.broken = true
    } catch {
      this.broken = true
    } finally {
      clearTimeout(timer)
      this.waiters.delete(name)
      await rm(marker, { force: true }).catch(() => undefined)
    }
    if (this.broken) return undefined
    const events = this.events
    this.events = new Map()
    return events
  }

  close(): void {
    this.broken = true
    this.remove([...this.handles.keys()])
    this.syncHandle?.close()
  }

  /** One event of the directory at `path`: the entry it names (the directory's own last part for itself). */
  private record(path: string, name: Buffer | null): void {
    this.count()
    if (name === null) {
      this.broken = true
      return
    }
    const names = this.events.get(path)
    if (names === 'many') return
    if (names === undefined) this.events.set(path, new Set([name.toString()]))
    else if (names.size < MAX_NAMES) names.add(name.toString())
    else this.events.set(path, 'many')
  }

  /** Counts an event in the thread's bursts (core's `inotifyBursts`): one that may have overflowed the queue, whoever's, ends the watch. */
  private count(): void {
    inotifyBursts.event(this.burstLimit)
    if (inotifyBursts.overflows !== this.overflows) this.broken = true
  }
}

/**
 * The process's sync directory: private (0700) under the temp dir, made again when it is gone (or is
 * not a directory). Making it first removes those left by processes no longer running. Undefined when
 * it cannot be made.
 */
function processSyncDir(): string | undefined {
  if (syncDir !== undefined && lstatSync(syncDir, { throwIfNoEntry: false })?.isDirectory() === true) return syncDir
  removeDeadSyncDirs()
  try {
    syncDir = mkdtempSync(join(tmpdir(), `dsh-watch-${process.pid}-`))
  } catch {
    return undefined
  }
  if (!exitHooked) process.once('exit', removeSyncDir)
  exitHooked = true
  return syncDir
}

/** Removes this user's sync directories of processes no longer running. */
export function removeDeadSyncDirs(): void {
  let names: string[]
  try {
    names = readdirSync(tmpdir())
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(SYNC_DIR.exec(name)?.[1])
    if (!(pid > 0) || pid === process.pid || running(pid)) continue
    const path = join(tmpdir(), name)
    // Another user's is not ours to judge (nor, in a sticky temp dir, to remove).
    if (lstatSync(path, { throwIfNoEntry: false })?.uid === process.getuid!()) rmSync(path, { recursive: true, force: true })
  }
}

/** Whether a process runs (or one we may not signal: not ours to judge). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** Removes the process's sync directory: at exit, so it does not outlive the process. */
export function removeSyncDir(): void {
  if (syncDir !== undefined) rmSync(syncDir, { recursive: true, force: true })
  syncDir = undefined
}
