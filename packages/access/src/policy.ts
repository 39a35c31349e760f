// createAccessPolicy: is a path inside a root and clear of the deny rules, judged where its links lead.
// POSIX paths: the executors this policy guards run bash, and rg's globs use "/".
import { dirname, relative, resolve } from 'node:path/posix'
import { AccessError, FsError, type AccessGrant, type AccessPolicy, type AccessRequest, type FileSystem, type SpillStore } from '@dsh/core'
import type { AccessConfig } from './config.js'
import { DenyRules } from './deny.js'
import { specialTree } from './special-trees.js'

/** What the policy needs besides its config: the filesystem that resolves links, and the spill store. */
export interface AccessDeps {
  fs: FileSystem
  /** The store whose results stay reachable, for the session that saved them; read when a call is checked. */
  spillStore: () => SpillStore | undefined
}

/** One root of a call: resolved against the session cwd, and with its links followed. */
interface Root {
  lexical: string
  real: string
}

/**
 * The policy: the roots are resolved against the call's cwd, so a session that moves is followed. Checks
 * that overlap in time, or follow one another within a turn of the event loop, share one resolution of
 * the roots (a search judging 10,000 links asks 16 at a time, and judged from memory each round of 16
 * ends before the next begins: resolving every root again per round was a fifth of a remembered call's
 * time); a check in a later turn resolves them again.
 */
export function createAccessPolicy(config: AccessConfig, deps: AccessDeps): AccessPolicy {
  const deny = new DenyRules(config.deny)
  const shared = new SharedRoots((cwd) => Promise.all(config.roots.map((root) => resolveRoot(deps.fs, cwd, root))))
  return {
    check: (request) => shared.with(request.cwd, (roots) => check(request, roots)),
  }

  async function check(request: AccessRequest, resolvedRoots: Promise<Root[]>): Promise<AccessGrant> {
    const lexical = resolve(request.cwd, request.path)
    const real = request.realPath === undefined ? await realPathOf(deps.fs, lexical) : resolve(request.realPath)
    // Only the results the store saved for this session, never all that lies under its root.
    const store = deps.spillStore()
    if (store !== undefined && request.session !== undefined && (await store.holds(real, request.session))) {
      return { realPath: real, excludeGlobs: [] }
    }
    const roots = await resolvedRoots
    const root = roots.find((r) => contains(r.real, real))
    const inRoot = root === undefined ? undefined : below(root.real, real)
    if (inRoot === undefined) {
      throw new AccessError(
        'ACCESS_OUTSIDE_ROOTS',
        `${request.path} is outside the directories this session may ${request.purpose}: ${roots.map((r) => r.real).join(', ')}. Give a path inside one of them.`,
      )
    }
    // Judged where the links lead and by the name the call used: a link named .env is refused too.
    const viaLink = roots.find((r) => contains(r.lexical, lexical))
    if (deny.denies(inRoot) || (viaLink !== undefined && deny.denies(below(viaLink.lexical, lexical)!))) {
      throw new AccessError(
        'ACCESS_DENIED',
        `${request.path} is excluded by this session's access rules; it cannot be ${request.purpose === 'read' ? 'read' : 'searched'}.`,
      )
    }
    return { realPath: real, excludeGlobs: request.purpose === 'search' ? deny.exclusionsBelow(inRoot) : [] }
  }
}

/**
 * The roots as resolved for one cwd, shared by the checks in flight for it: a check that starts while
 * another is running, or before the turn in which the last one ended is over, uses the resolution
 * that one started.
 */
class SharedRoots {
  private current: { cwd: string; roots: Promise<Root[]>; users: number } | undefined

  constructor(private readonly resolveAll: (cwd: string) => Promise<Root[]>) {}

  async with<T>(cwd: string, use: (roots: Promise<Root[]>) => Promise<T>): Promise<T> {
    let entry = this.current
    if (entry === undefined || entry.cwd !== cwd) {
      // A check for another cwd while these are in flight resolves its own, and is shared from then on.
      entry = { cwd, roots: this.resolveAll(cwd), users: 0 }
      this.current = entry
    }
    entry.users++
    try {
      return await use(entry.roots)
    } finally {
      if (--entry.users === 0) {
        const ended = entry
        setImmediate(() => {
          if (ended.users === 0 && this.current === ended) this.current = undefined
        })
      }
    }
  }
}

async function resolveRoot(fs: FileSystem, cwd: string, root: string): Promise<Root> {
  const lexical = resolve(cwd, root)
  return { lexical, real: await realPathOf(fs, lexical) }
}

/**
 * The path with its links followed. A path that does not exist (yet) is judged by its nearest existing
 * ancestor's real path plus the rest, so a missing file under a link that leads out is still outside.
 */
async function realPathOf(fs: FileSystem, path: string): Promise<string> {
  try {
    return await fs.realpath(path)
  } catch (error) {
    const parent = dirname(path)
    if (!(error instanceof FsError) || error.code !== 'FS_NOT_FOUND' || parent === path) return path
    return resolve(await realPathOf(fs, parent), relative(parent, path))
  }
}

/** True when `path` is `root` or lies below it; a special tree only below a root that is in it. */
function contains(root: string, path: string): boolean {
  if (below(root, path) === undefined) return false
  const tree = specialTree(path)
  return tree === undefined || specialTree(root) === tree
}

/**
 * `path` from `root` ('' for the root itself), or undefined when it lies elsewhere. Both absolute and
 * normalized (resolved or real), so a prefix of whole names is enough: path.relative cost a search
 * judging 10,000 links a tenth of a second.
 */
function below(root: string, path: string): string | undefined {
  if (path === root) return ''
  const prefix = root.endsWith('/') ? root : `${root}/`
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined
}
