// Where a tree's index lives: a private directory per tree, named by a hash of its real path.
import { createHash } from 'node:crypto'
import { mkdir, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { IndexError } from './errors.js'

/** The index file inside a tree's directory. */
export const INDEX_FILE = 'index.dshidx'

/** Beside it, what changed since it was built, keyed (docs/design.md#an-update-keys-what-changed). */
export const UPDATE_FILE = 'update.dshidx'

/** The private directory that holds the index of the tree at `root` (a real path). */
export function treeDir(indexDir: string, root: string): string {
  return join(indexDir, createHash('sha256').update(root).digest('hex').slice(0, 32))
}

/**
 * Makes `dir` (and its parents) private to this user, and refuses one that another user owns or
 * others may write: an index there could have been planted to hide files from a search.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await assertPrivate(dir)
}

/** Throws INDEX_REFUSED unless `path` belongs to this user and no one else may write it. */
export async function assertPrivate(path: string): Promise<void> {
  const info = await stat(path)
  const uid = process.getuid?.()
  if ((uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) {
    throw new IndexError(
      'INDEX_REFUSED',
      `${path} is not private to this user (owner ${info.uid}, mode ${(info.mode & 0o777).toString(8)})`,
    )
  }
}

/** `dir` and each of its ancestors, nearest first: the trees whose index could cover a search of `dir`. */
export function ancestors(dir: string): string[] {
  const out = [dir]
  for (let d = dir; dirname(d) !== d; d = dirname(d)) out.push(dirname(d))
  return out
}
