// Snapshots of the tree before and after the soak: a read-only tool must leave every byte as it was.
import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** Each path under the base (latin1, so any byte name round-trips) → what it is; atime and ctime left out. */
export type TreeSnapshot = Map<string, string>

/**
 * Walks `dirs` under `base` without following links: a link is recorded by its own target text, mode
 * and mtime (lstat), so a link that dangles or loops is described like any other, and a directory
 * is entered only when it is one itself. FIFOs are described, never opened. Run as root, so locked
 * paths are read too.
 */
export function snapshotTree(base: string, dirs: readonly string[]): TreeSnapshot {
  const snapshot: TreeSnapshot = new Map()
  const walk = (dir: Buffer): void => {
    for (const name of readdirSync(dir, { encoding: 'buffer' })) {
      const full = Buffer.concat([dir, Buffer.from('/'), name])
      const relative = full.subarray(base.length + 1).toString('latin1')
      const info = lstatSync(full)
      const common = `mode ${(info.mode & 0o7777).toString(8)} mtime ${info.mtimeMs}`
      if (info.isDirectory()) {
        snapshot.set(relative, `directory ${common}`)
        walk(full)
      } else if (info.isSymbolicLink()) {
        snapshot.set(relative, `symlink → ${readlinkSync(full, { encoding: 'buffer' }).toString('latin1')} ${common}`)
      } else if (info.isFile()) {
        const hash = createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16)
        snapshot.set(relative, `file ${common} size ${info.size} sha256 ${hash}`)
      } else {
        snapshot.set(relative, `${info.isFIFO() ? 'fifo' : 'special'} ${common}`)
      }
    }
  }
  for (const dir of dirs) walk(Buffer.from(`${base}/${dir}`))
  return snapshot
}

/** The paths added, removed or changed between two snapshots, each with what changed, ready to print. */
export function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changes: string[] = []
  const shown = (key: string): string => JSON.stringify(Buffer.from(key, 'latin1').toString('utf8'))
  for (const [key, was] of before) {
    const now = after.get(key)
    if (now === undefined) changes.push(`removed ${shown(key)} (was ${was})`)
    else if (now !== was) changes.push(`changed ${shown(key)}: ${was} → ${now}`)
  }
  for (const [key, now] of after) if (!before.has(key)) changes.push(`added ${shown(key)} (${now})`)
  return changes
}
