// The probe cache's seam: the joint probe's answer remembered under a key, while the files it depends on
// are unchanged (docs/design.md#the-probe-cache). The host checks those files; this side names them.
import path from 'node:path'
import type { BashExecutor } from '@dsh/core'

/**
 * Remembers the executor probe's answer. A host provides one (the `probeCache` service) only when its
 * bash executor runs on this machine with its default shell: it checks the answer against files it
 * can look at here, which says nothing of a remote executor's. Without one, every harness probes.
 */
export interface ProbeCache {
  /** The answer recorded under `key`, when each file recorded with it is as it was then; else undefined. */
  get(key: string): string | undefined
  /** Records `answer` under `key`, with the files (absolute paths) it depends on, as they are now. */
  set(key: string, answer: string, files: readonly string[]): void
}

// The programs the joint probe looks up by name in PATH (the mtime helper's, perl, and dd).
const LOOKED_UP = ['find', 'perl', 'xargs', 'stat', 'sh', 'dd'] as const

/**
 * The key an answer is kept under: the rg candidates and the environment the executor gives the probe,
 * and its working directory when a candidate is relative (`./rg` is found from there); and the PATH
 * the probe looks programs up in.
 */
export async function probeCacheKey(bash: BashExecutor, candidates: readonly string[]): Promise<{ key: string; searchPath: string }> {
  const spec = await bash.resolve({ command: 'true' })
  const relative = candidates.some((candidate) => candidate.includes('/') && !candidate.startsWith('/'))
  return { key: JSON.stringify([candidates, spec.env, relative ? spec.workdir : '']), searchPath: spec.env.PATH ?? '' }
}

/**
 * The files a joint answer depends on: the rg it chose, and every file a PATH lookup of the probe's
 * looked at or could now find first (each name it looks up, in each absolute PATH directory), which
 * holds the helper's programs as chosen: a program added, removed, replaced, rewritten or made
 * executable in any of them changes what the host sees of one of them.
 */
export function dependencies(rg: string, candidates: readonly string[], searchPath: string): string[] {
  const names: string[] = [...LOOKED_UP, ...candidates.slice(0, 1).filter((candidate) => !candidate.includes('/'))]
  const dirs = searchPath.split(':').filter((dir) => path.isAbsolute(dir))
  return [...new Set([rg, ...dirs.flatMap((dir) => names.map((name) => path.join(dir, name)))])]
}
