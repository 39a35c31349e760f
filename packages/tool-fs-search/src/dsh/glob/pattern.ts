// Turning the glob patterns models send into a search root and an rg glob.
import path from 'node:path'
import type { GlobArgs } from './args.js'

/** Where a glob runs from and what it matches there. */
export interface GlobPlan {
  /** The search root: absolute, or relative to the workdir. */
  root: string
  /** The rg glob, matched against paths relative to `root`. */
  glob: string
}

const GLOB_META = /[*?[\]{}]/

/**
 * Turns the pattern models send into a root and an rg glob (docs/design.md#patterns-models-send). rg
 * matches a `./src/*.ts`, `../x/*.ts` or `/abs/**` glob against nothing, so their leading plain
 * segments become part of the root and the rest stays anchored to it with a leading `/`.
 */
export function planGlob({ pattern, path: searchPath }: GlobArgs): GlobPlan {
  const base = searchPath ?? '.'
  const segments = pattern.split('/')
  const absolute = pattern.startsWith('/')
  const dotted = segments.some((s) => s === '.' || s === '..')
  if (!absolute && !dotted) return { root: base, glob: pattern }

  // Plain segments before the first one with glob syntax (never the last: that is what is matched).
  let split = 0
  while (split < segments.length - 1 && !GLOB_META.test(segments[split]!)) split += 1
  const prefix = segments.slice(0, split).join('/')
  const rest = segments
    .slice(split)
    .filter((s) => s !== '' && s !== '.')
    .join('/')
  return {
    root: absolute ? path.posix.normalize(prefix === '' ? '/' : prefix) : joinRoot(base, prefix),
    glob: `/${rest === '' ? '**' : rest}`,
  }
}

/**
 * The path under the search path. Normalized, except where a `..` would cancel a segment of a path
 * the model gave: `missing/..` as text is the cwd, but the script must find `missing` absent (or
 * `file.ts/..` not a directory) rather than list the cwd.
 */
function joinRoot(base: string, prefix: string): string {
  if (base === '.' || !prefix.split('/').includes('..')) return path.posix.join(base, prefix)
  return `${base.replace(/\/+$/, '')}/${prefix}`
}
