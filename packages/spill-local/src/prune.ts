// Retention: deleting an owner's files past their age or size budget, oldest first.
import { lstat, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** What one owner may keep. */
export interface PrunePolicy {
  maxAgeMs: number
  maxBytesPerOwner: number
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
 * Applies the retention policy to one owner directory: deletes spill files older than `maxAgeMs`,
 * then the oldest until the owner's total (`keep` included) fits `maxBytesPerOwner`. Never deletes
 * `keep` (the file just written), another save's fresh temp file, or anything this store did not
 * name. A file that vanishes or resists deletion is skipped: retention runs again after the next save.
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
  const expired = (e: SpillEntry): boolean => policy.now - e.mtimeMs > (e.temp ? Math.max(policy.maxAgeMs, STALE_TEMP_MS) : policy.maxAgeMs)
  const doomed = entries.filter(expired)
  const kept = entries.filter((e) => !e.temp && !expired(e)).sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path))
  let total = keep.bytes + kept.reduce((sum, e) => sum + e.bytes, 0)
  for (const entry of kept) {
    if (total <= policy.maxBytesPerOwner) break
    doomed.push(entry)
    total -= entry.bytes
  }
  await Promise.allSettled(doomed.map((entry) => rm(entry.path)))
}
