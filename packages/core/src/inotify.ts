// Which file systems a watch can trust: the fact fs-local's directory watch and index-local's tree
// watcher both decide by (docs/design.md#a-watched-tree-needs-no-link-stats), the kernel's limits they
// read, and the bursts of events they count together.
import { readFileSync } from 'node:fs'

/**
 * statfs's magic numbers of the Linux file systems whose every change, whoever made it, the kernel
 * reports to inotify here: ext2–4, XFS, Btrfs, tmpfs, ramfs, overlayfs, ZFS, F2FS, bcachefs. A
 * network or FUSE file system changed from another host makes no event on this one.
 */
const EVENTFUL_TYPES: ReadonlySet<number> = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e,
])

/** True when a file system of this statfs type reports every change to inotify, so a watch of it can vouch for a tree. */
export function reportsEveryChange(statfsType: number): boolean {
  return EVENTFUL_TYPES.has(statfsType)
}

/**
 * The bursts of inotify events this thread's watches receive. libuv reads one inotify queue a loop for
 * every `fs.watch`, and drops the kernel's notice that the queue overflowed; so a burst delivered in
 * one poll of the queue (before any `setImmediate` runs) as large as half the queue may have lost
 * events of any watch of the thread, not only of the one whose events filled it. Every dsh watch
 * counts its events here, and gives up when `overflows` moved since it last looked. A host's own
 * `fs.watch` events are not counted: a burst of them alone goes unseen.
 */
class InotifyBursts {
  private burst = 0
  private burstId = 0
  private countedId = -1
  private serial = 0

  /** One event, counted in the current burst; the burst reaching `limit` is an overflow, once. */
  event(limit: number): void {
    if (this.burst++ === 0) {
      setImmediate(() => {
        this.burst = 0
        this.burstId++
      })
    }
    if (this.burst >= limit && this.countedId !== this.burstId) {
      this.countedId = this.burstId
      this.serial++
    }
  }

  /** How many bursts so far may have overflowed the queue. */
  get overflows(): number {
    return this.serial
  }
}

/** The thread's count of inotify bursts, shared by fs-local's and index-local's watches. */
export const inotifyBursts = new InotifyBursts()

/** A kernel limit from its /proc file (`/proc/sys/fs/inotify/...`), or `fallback` when it cannot be read or is not a positive number. */
export function inotifyLimit(path: string, fallback: number): number {
  try {
    const value = Number(readFileSync(path, 'latin1').trim())
    return Number.isInteger(value) && value > 0 ? value : fallback
  } catch {
    return fallback
  }
}
