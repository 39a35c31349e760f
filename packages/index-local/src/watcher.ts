// A warm process's record of what changed under an indexed tree: one inotify watch (fs.watch) per
// directory the index knows, and a sync point that proves every event before a search has arrived.
import { watch, type FSWatcher } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { inotifyBursts, inotifyLimit } from '@dsh/core'
import type { Changed } from './freshness.js'
import { UNREAD_DIR } from './format.js'

/** The kernel's bound on queued inotify events; past it events are dropped, and libuv drops the overflow notice too. */
export function inotifyQueueLimit(path = '/proc/sys/fs/inotify/max_queued_events'): number {
  return inotifyLimit(path, 16_384)
}

/** What a watcher knows after a sync: the seed walk's entries and the names events reported, all from the root. */
export interface WatchedChanges {
  walked: readonly Changed[]
  /** Entries an event named: a file or a directory, new, changed or gone (read as a file and as a whole directory). */
  named: ReadonlySet<string>
}

/** Options a watcher is started with. */
export interface WatcherOptions {
  /** Where the sync markers are written: the index's own private directory, outside the tree. */
  syncDir: string
  /** More changed names than this are not kept: the searches read the whole tree until a rebuild. */
  maxNames: number
  /** Events delivered in one burst from which a lost event cannot be ruled out (half the kernel's queue). */
  burstLimit: number
  /** Yields to the event loop after this many watches are added. @default 2000 */
  batch?: number
  /** Adds one watch: node's `fs.watch`, or a test's stand-in that fails as the kernel can. @default fs.watch */
  watch?: typeof watch
}

/**
 * Watches every directory of one index. Events name entries (a directory's watch reports its own
 * entries by name); a directory it could not watch is read whole. It cannot vouch for anything
 * (`broken`) after an error, an event without a name, a watch limit, or a burst of events as large as
 * the kernel's queue, which may have overflowed: libuv drops the kernel's overflow notice, so the
 * burst is the only sign of it.
 */
export class TreeWatcher {
  broken: string | undefined
  /** The seed: a change walk of the whole tree started after every watch was in place. */
  walked: Changed[] | undefined
  /** The directories it watches, from the root, with the inodes the index gave them. */
  readonly watching = new Map<string, number>()
  private readonly named = new Set<string>()
  /** When each name was last recorded, by the count of names recorded before it. */
  private readonly recorded = new Map<string, number>()
  private records = 0
  private tooMany = false
  private readonly handles: FSWatcher[] = []
  private readonly waiters = new Map<string, () => void>()
  // The thread's overflows when the watcher began: any later one may have lost an event of it.
  private readonly overflows = inotifyBursts.overflows
  private syncs = 0

  private constructor(private readonly options: WatcherOptions) {}

  /** Adds a watch to each directory (one inotify watch each), the sync directory first. */
  static async start(root: string, dirs: ReadonlyMap<string, number>, options: WatcherOptions): Promise<TreeWatcher> {
    const watcher = new TreeWatcher(options)
    // Inside the index's private directory, which the search has already checked.
    await mkdir(options.syncDir, { recursive: true, mode: 0o700 }).catch(() => undefined)
    watcher.add(options.syncDir, (name) => watcher.waiters.get(name)?.())
    const rootBytes = Buffer.from(root)
    let added = 0
    for (const [rel, inode] of dirs) {
      // Read whole by every search already.
      if (inode === UNREAD_DIR) continue
      const path = rel === '' ? rootBytes : Buffer.concat([rootBytes, Buffer.from(`/${rel}`, 'latin1')])
      // A directory deleted or moved away reports its own name (libuv names a watch's self events by
      // the watched path's last part): a directory made in its place, which may reuse its inode, is
      // watched by no one. Below the root its parent's watch names it too; it is read whole from then
      // on. The root has no parent here: the watcher gives up. A child with the directory's own name
      // reads the same, which costs only time.
      const own = rel === '' ? basename(root) : rel.slice(rel.lastIndexOf('/') + 1)
      const watched = watcher.add(
        path,
        (name) => {
          if (name === own) {
            if (rel === '') watcher.fail('the tree was deleted or moved away')
            else watcher.record(rel)
          }
          watcher.record(rel === '' ? name : `${rel}/${name}`)
        },
        rel,
      )
      if (watched) watcher.watching.set(rel, inode)
      if (watcher.broken !== undefined) break
      if (++added % (options.batch ?? 2000) === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    return watcher
  }

  /** Adds one watch; false when there is none (the directory gone, or recorded or failed instead). */
  private add(path: string | Buffer, onName: (name: string) => void, rel?: string): boolean {
    let handle: FSWatcher
    try {
      handle = (this.options.watch ?? watch)(path, { persistent: false, encoding: 'buffer' }, (_event, filename) => {
        this.count()
        if (filename === null) this.fail('an event came without a name')
        else onName(filename.toString('latin1'))
      })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Gone since the build: its parent's ctime changed, so the seed walk reports it.
      if (code === 'ENOENT' || code === 'ENOTDIR') return false
      if (code === 'ENOSPC' || code === 'EMFILE' || rel === undefined || rel === '') {
        this.fail(`a directory could not be watched (${code ?? 'error'}; fs.inotify.max_user_watches may be too low)`)
        return false
      }
      // Watched by no one: read whole by every search.
      this.record(rel)
      return false
    }
    handle.on('error', (error: Error) => this.fail(`the watch failed (${error.message})`))
    this.handles.push(handle)
    return true
  }

  /** Counts an event in the thread's bursts (core's `inotifyBursts`), which every watch of the thread shares. */
  private count(): void {
    inotifyBursts.event(this.options.burstLimit)
    if (inotifyBursts.overflows !== this.overflows) this.fail('events may have been lost: a burst filled the inotify queue')
  }

  private record(rel: string): void {
    if (this.tooMany) return
    this.named.add(rel)
    this.recorded.set(rel, this.records++)
    if (this.named.size > this.options.maxNames) {
      this.tooMany = true
      this.named.clear()
      this.recorded.clear()
    }
  }

  /** A point in the record of names: `namedSince` gives the names recorded after it. */
  cut(): number {
    return this.records
  }

  /** The names recorded (again) after `cut`, or undefined when more than it keeps were. */
  namedSince(cut: number): string[] | undefined {
    if (this.tooMany) return undefined
    return [...this.recorded].filter(([, at]) => at >= cut).map(([rel]) => rel)
  }

  /** Records names another watcher of the same tree saw, as if their events had come here. */
  carry(names: readonly string[]): void {
    for (const rel of names) this.record(rel)
  }

  private fail(why: string): void {
    this.broken ??= why
  }

  /**
   * Proves that every event for a change made before this call has been recorded: a marker file is
   * created in the watched sync directory, and one inotify queue (libuv keeps one per loop) delivers
   * events in order, so once the marker's event arrives every earlier event has. False, and broken for
   * good, when the marker cannot be written or is not seen within `timeoutMs`, or the watcher broke.
   */
  async sync(timeoutMs: number): Promise<boolean> {
    if (inotifyBursts.overflows !== this.overflows) this.fail('events may have been lost: a burst filled the inotify queue')
    if (this.broken !== undefined) return false
    const name = `sync-${process.pid}-${++this.syncs}`
    let timer: NodeJS.Timeout | undefined
    const arrived = new Promise<boolean>((resolve) => {
      this.waiters.set(name, () => resolve(true))
      timer = setTimeout(() => resolve(false), timeoutMs)
    })
    const marker = join(this.options.syncDir, name)
    try {
      await writeFile(marker, '', { mode: 0o600, flag: 'wx' })
      if (!(await arrived)) this.fail(`the sync marker's event did not come within ${timeoutMs} ms`)
    } catch (error) {
      this.fail(`the sync marker could not be written (${(error as Error).message})`)
    } finally {
      clearTimeout(timer)
      this.waiters.delete(name)
      await rm(marker, { force: true }).catch(() => undefined)
    }
    return this.broken === undefined
  }

  /** What changed since the build, or undefined when more did than the watcher keeps. */
  changes(): WatchedChanges | undefined {
    if (this.tooMany || this.walked === undefined) return undefined
    return { walked: this.walked, named: this.named }
  }

  close(): void {
    for (const handle of this.handles.splice(0)) handle.close()
  }
}
