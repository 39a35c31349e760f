// Which files the store answers for: the results it saved for an owner, never all that lies under its root.
import { lstat, realpath } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { OWNER_MARKER } from './directories.js'
import { ownerDirName, SPILL_FILE_NAME } from './names.js'

/**
 * True when `path` (absolute, its links followed) is one of the results this store saved for `owner`:
 * a regular file named as the store names its files, directly in the owner's directory under the
 * root's real path, a directory that is private (0700, as the store makes it) and carries the store's
 * marker. A spill root of `.` or `/` then exempts those files and nothing else
 * (docs/design.md#the-spill-store-is-exempt-file-by-file).
 */
export async function holdsResult(root: string, path: string, owner: string): Promise<boolean> {
  // The name first: a policy check of any other path (a search judges thousands of links) costs no system call here.
  if (!SPILL_FILE_NAME.test(basename(path))) return false
  const realRoot = await realpath(root).catch(() => undefined)
  if (realRoot === undefined) return false
  const ownerDir = join(realRoot, ownerDirName(owner))
  if (dirname(path) !== ownerDir) return false
  try {
    const [file, dir, marker] = await Promise.all([lstat(path), lstat(ownerDir), lstat(join(ownerDir, OWNER_MARKER))])
    return file.isFile() && dir.isDirectory() && (dir.mode & 0o077) === 0 && marker.isFile()
  } catch {
    return false
  }
}

/**
 * The locator (`<root>/<owner dir>/<name>`, as `saveText` returns it) of the result `name` saved for
 * `owner`, when `holdsResult` says the store holds it; undefined for any other name, which therefore
 * never leaves the owner's directory.
 */
export async function locateResult(root: string, owner: string, name: string): Promise<string | undefined> {
  if (!SPILL_FILE_NAME.test(name)) return undefined
  const realRoot = await realpath(root).catch(() => undefined)
  if (realRoot === undefined) return undefined
  const held = await holdsResult(root, join(realRoot, ownerDirName(owner), name), owner)
  return held ? join(root, ownerDirName(owner), name) : undefined
}
