// Creating the store's private directories (0700) without following planted links.
import { chmod, lstat, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * Spilled results can hold anything a search found, secrets included, so their directories are 0700,
 * set with chmod because a umask can only take bits away from what mkdir asks for.
 */

/** Creates the root (0700 when this call creates it) and the owner directory (always 0700). */
export async function ensureOwnerDir(root: string, ownerDir: string): Promise<void> {
  // An existing root is the operator's directory (it may be a shared one): its mode is theirs to set.
  if (await makeDirectory(root)) await chmod(root, 0o700)
  await makeDirectory(ownerDir)
  // chmod and every later write follow symlinks, and a symlinked owner dir would lead out of the root.
  if (!(await lstat(ownerDir)).isDirectory()) throw new Error(`${ownerDir} is a symbolic link or not a directory`)
  await chmod(ownerDir, 0o700)
}

/**
 * `mkdir -p` by hand; returns whether `dir` was created. Node's own `mkdir(dir, { recursive: true })`
 * (async, seen on Node 20.20) spins forever when a parent exists but cannot hold children, as under
 * /proc: ENOENT sends it back to the parent, EEXIST forward again. Here a second ENOENT is final.
 */
export async function makeDirectory(dir: string, createParents = true): Promise<boolean> {
  try {
    await mkdir(dir, { mode: 0o700 })
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // EEXIST may also be a concurrent save that created it first, or a file (the caller's lstat or open says so).
    if (code === 'EEXIST') return false
    if (code !== 'ENOENT' || !createParents) throw error
  }
  await makeDirectory(dirname(dir))
  return makeDirectory(dir, false)
}
