import { homedir } from 'node:os'
import path from 'node:path'

/**
 * Where corpora live: outside the repository, so the repo's own searches, lint and git never see a
 * 793 MB tree. `$XDG_CACHE_HOME/dsh-bench`, else `~/.cache/dsh-bench` (the XDG rule: a relative
 * XDG_CACHE_HOME is ignored).
 */
export function benchCacheDir(): string {
  const cacheHome = process.env.XDG_CACHE_HOME
  const base = cacheHome !== undefined && path.isAbsolute(cacheHome) ? cacheHome : path.join(homedir(), '.cache')
  return path.join(base, 'dsh-bench')
}
