// stampMany: many paths' identities and change times at once, for revalidating a remembered walk.
import { lstatSync, statSync, type BigIntStats } from 'node:fs'
import { isAbsolute } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { PathStamp } from '@dsh/core'

// Paths statted between turns of the event loop: a few milliseconds of system calls, so a host's other
// work waits no longer than that.
const PER_TURN = 512

/**
 * Each path's stamp, in order (docs/design.md#the-link-scan-is-remembered). The calls are synchronous,
 * a slice per turn: a stat of a cached inode takes microseconds, and a promise per path cost more than
 * the call (8,000 directories: 30 ms synchronous, 40–100 ms through the thread pool, measured). A path
 * that is not absolute or holds NUL names nothing here, so it is `unknown`.
 */
export async function stampMany(paths: readonly string[], options: { follow: boolean }): Promise<PathStamp[]> {
  const stamps: PathStamp[] = []
  const call = options.follow ? statSync : lstatSync
  for (let start = 0; start < paths.length; start += PER_TURN) {
    if (start > 0) await nextTurn()
    for (const path of paths.slice(start, start + PER_TURN)) stamps.push(stampOf(call, path))
  }
  return stamps
}

function stampOf(call: typeof statSync, path: string): PathStamp {
  if (!isAbsolute(path) || path.includes('\0')) return { kind: 'unknown' }
  let stats: BigIntStats | undefined
  try {
    stats = call(path, { bigint: true, throwIfNoEntry: false })
  } catch (error) {
    return { kind: (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'loop' : 'unknown' }
  }
  if (stats === undefined) return { kind: 'missing' }
  const kind = stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : stats.isSymbolicLink() ? 'link' : 'other'
  return { kind, dev: String(stats.dev), ino: String(stats.ino), mtimeNs: String(stats.mtimeNs), ctimeNs: String(stats.ctimeNs) }
}
