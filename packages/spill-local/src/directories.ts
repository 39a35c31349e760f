// The store's directories: private (0700), created without following planted links, and marked as its own.
import { randomBytes } from 'node:crypto'
import { chmod, lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { SpillError, type SpillErrorCode } from './errors.js'

/**
 * Spilled results can hold anything a search found, secrets included, so their directories are 0700,
 * set with chmod because a umask can only take bits away from what mkdir asks for. The root may hold
 * other things (a repository, when the spill dir is `.`), and an owner's name (`cli`) may already be
 * taken there: the store marks each owner directory it creates, and chmods, writes into and prunes no
 * other. A marker inside the directory moves, and goes, with it; a list kept elsewhere could go stale.
 */

/** The file that marks an owner directory as the store's own. */
export const OWNER_MARKER = '.dsh-spill-owner'
const MARKER_TEXT =
  'Created by the dsh spill store (@dsh/spill-local): it saves results here and deletes them under its retention policy. It writes only into directories that hold this file.\n'

/** What lies at an owner directory's path. */
type OwnerDirState = 'missing' | 'own' | 'unmarked' | 'not-a-directory'

// Why the store will not use the path, past a first attempt to create it.
const REFUSALS: Record<Exclude<OwnerDirState, 'own'>, { code: SpillErrorCode; reason: string }> = {
  unmarked: {
    code: 'SPILL_FOREIGN_DIR',
    reason: `already exists and was not created by the spill store (it holds no ${OWNER_MARKER} file), so it is left alone; configure another spill root or session, or delete it if an earlier dsh made it`,
  },
  'not-a-directory': {
    code: 'SPILL_FOREIGN_DIR',
    reason: 'is a symbolic link or not a directory, so it is left alone; configure another spill root or session',
  },
  missing: { code: 'SPILL_WRITE_FAILED', reason: 'could not be created' },
}

/**
 * Creates the root (0700 when this call creates it) and the owner directory (0700, marked), or checks
 * that an existing owner directory is the store's; throws `SPILL_FOREIGN_DIR` for one that is not.
 */
export async function ensureOwnerDir(root: string, ownerDir: string): Promise<void> {
  // An existing root is the operator's directory (it may be a shared one): its mode is theirs to set.
  if (await makeDirectory(root)) await chmod(root, 0o700)
  let state = await inspectOwnerDir(ownerDir)
  let failure: unknown
  if (state === 'missing') {
    failure = await createOwnerDir(ownerDir)
    state = await inspectOwnerDir(ownerDir)
  }
  if (state !== 'own') throw new SpillError(REFUSALS[state].code, `${ownerDir} ${REFUSALS[state].reason}`, { cause: failure })
}

/** What lies at `dir`. lstat, since a symlinked owner dir would lead out of the root. */
async function inspectOwnerDir(dir: string): Promise<OwnerDirState> {
  let info
  try {
    info = await lstat(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw error
  }
  if (!info.isDirectory()) return 'not-a-directory'
  // A marker that cannot be looked at proves nothing: such a directory is left alone too.
  const marker = await lstat(join(dir, OWNER_MARKER)).catch(() => undefined)
  return marker?.isFile() ? 'own' : 'unmarked'
}

/**
 * Builds a marked owner directory under a temp name and renames it into place, so no save, in this
 * process or another, ever sees it unmarked. rename never replaces a non-empty directory: of racing
 * saves the first wins and the rest find its directory. Resolves to the failure, if any, for the
 * caller's second look to report.
 */
async function createOwnerDir(dir: string): Promise<unknown> {
  const temp = join(dirname(dir), `.tmp-${randomBytes(6).toString('hex')}-${basename(dir)}`)
  await mkdir(temp, { mode: 0o700 })
  try {
    await chmod(temp, 0o700)
    await writeFile(join(temp, OWNER_MARKER), MARKER_TEXT, { flag: 'wx', mode: 0o600 })
    await rename(temp, dir)
    return undefined
  } catch (error) {
    return error
  } finally {
    // After a successful rename there is nothing left at the temp name.
    await rm(temp, { recursive: true, force: true })
  }
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
