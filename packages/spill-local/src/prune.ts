// Retention: deleting an owner's files past their age or size budget, oldest first, none still fresh.
import { lstat, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** What one owner may keep. */
export interface PrunePolicy {
  maxAgeMs: number
  maxBytesPerOwner: number
  /** No file younger than this is deleted, by either rule. */
  minAgeMs: number
  /** The current time, in ms since the epoch. */
  now: number
}

// Only names this store writes are candidates: anything else in an owner dir is left alone.
const SPILL_FILE = /^[0-9a-f]{12}-/
const TEMP_FILE = /^\.tmp-[0-9a-f]{12}-/
// A save takes milliseconds; a temp file this old belongs to a process that died mid-save.
const STALE_TEMP_MS = 60 * 60 * 1000

interface SpillEntry {
  path: string
  bytes: number
  mtimeMs: number
  temp: boolean
}

/**
 * Applies the retention policy to one owner directory (one the store created): deletes spill files
 * older than `maxAgeMs`, then the oldest until the owner's total (`keep` included) fits
 * `maxBytesPerOwner`. Never deletes `keep` (the file just written), a file younger than `minAgeMs`
 * (another call may have just reported it: saves run side by side, and each prunes), another save's
 * fresh temp file, or anything this store did not name. A file that vanishes or resists deletion is
 * skipped: retention runs again after the next save.
 */
export async function pruneOwnerDir(dir: string, keep: { name: string; bytes: number }, policy: PrunePolicy): Promise<void> {
  const names = await readdir(dir).catch(() => [])
  const candidates = names.filter((name) => name !== keep.name && (SPILL_FILE.test(name) || TEMP_FILE.test(name)))
  const stats = await Promise.allSettled(candidates.map((name) => lstat(join(dir, name))))
  const entries = stats.flatMap((result, i): SpillEntry[] =>
    result.status === 'fulfilled' && result.value.isFile()
      ? [{ path: join(dir, candidates[i]!), bytes: result.value.size, mtimeMs: result.value.mtimeMs, temp: TEMP_FILE.test(candidates[i]!) }]
      : [],
  )
  const maxAgeMs = Math.max(policy.maxAgeMs, policy.minAgeMs)
  const expired = (e: SpillEntry): boolean => policy.now - e.mtimeMs > (e.temp ? Math.max(maxAgeMs, STALE_TEMP_MS) : maxAgeMs)
  // A clock step back makes an age negative: such a file counts as fresh, unless the grace is off
  // (0), where a file's sub-millisecond mtime a hair past the whole-millisecond clock means nothing.
  const fresh = (e: SpillEntry): boolean => policy.minAgeMs > 0 && policy.now - e.mtimeMs < policy.minAgeMs
  const doomed = entries.filter(expired)
  const kept = entries.filter((e) => !e.temp && !expired(e)).sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path))
  let total = keep.bytes + kept.reduce((sum, e) => sum + e.bytes, 0)
  // Oldest first, so once one file is fresh, all the rest are too.
  for (const entry of kept) {
    if (total <= policy.maxBytesPerOwner || fresh(entry)) break
    doomed.push(entry)
    total -= entry.bytes
  }
  await Promise.allSettled(doomed.map((entry) => rm(entry.path)))
}
