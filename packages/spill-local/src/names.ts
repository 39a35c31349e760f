// Turning owner and filename hints into safe path segments: nothing a model sends picks a path.
import { createHash, randomBytes } from 'node:crypto'
import { isAbsolute, relative, sep } from 'node:path'
import { SpillError } from './errors.js'

/**
 * Owner and filename arrive as hints (a session id, `grep-results.txt`) and may carry whatever a model
 * or a client put in them. They become single path components from a small alphabet, so nothing in
 * them (a separator, `..`, a control character, a leading dot) chooses where a file lands.
 */
const UNSAFE_RUN = /[^A-Za-z0-9._-]+/g
const OWNER_MAX_CHARS = 64
const FILENAME_MAX_CHARS = 100
// An extension this short is worth keeping when a long name is cut: it tells a reader the format.
const EXTENSION_MAX_CHARS = 16

/** The directory name for an owner hint; hints that sanitize alike still get distinct directories. */
export function ownerDirName(hint: unknown): string {
  const raw = typeof hint === 'string' ? hint : ''
  const safe = cleanComponent(raw, OWNER_MAX_CHARS)
  if (safe !== '' && safe === raw) return safe
  // `a/b` and `a_b` must not share a directory (and a retention budget): tag a changed name with its origin.
  const digest = createHash('sha256').update(raw).digest('hex').slice(0, 8)
  return `${safe || 'unknown'}-${digest}`
}

/** Every name `spillFileName` makes: the id, a dash, then the cleaned hint. */
export const SPILL_FILE_NAME = /^[0-9a-f]{12}-[A-Za-z0-9._-]+$/

/** The on-disk name for a filename hint: `<12 hex id>-<clean name>`, unique per save. */
export function spillFileName(hint: unknown): string {
  const safe = cleanComponent(typeof hint === 'string' ? hint : '', FILENAME_MAX_CHARS)
  return `${randomBytes(6).toString('hex')}-${safe || 'result.txt'}`
}

/** Throws `SPILL_PATH_ESCAPE` unless `path` lies strictly inside `root`: the last guard, whatever the names. */
export function assertInsideRoot(root: string, path: string, action: 'write' | 'read' = 'write'): void {
  if (!isInside(root, path)) {
    throw new SpillError('SPILL_PATH_ESCAPE', `refusing to ${action} ${path}: it is not inside the spill root ${root}`)
  }
}

/** True when `path` lies strictly inside `root` (both absolute): a relative path from one to the other never climbs. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  const first = rel.split(sep)[0]
  return first !== '' && first !== '..' && !isAbsolute(rel)
}

function cleanComponent(raw: string, maxChars: number): string {
  const safe = raw.replace(UNSAFE_RUN, '_').replace(/^\.+/, '')
  if (safe.length <= maxChars) return safe
  const dot = safe.lastIndexOf('.')
  const extension = dot > 0 && safe.length - dot <= EXTENSION_MAX_CHARS ? safe.slice(dot) : ''
  return safe.slice(0, maxChars - extension.length) + extension
}
