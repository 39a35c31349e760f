// The glob script: list with rg from inside the root, and add each file's mtime in the executor.
import { exclusionArgs } from '../shared/access.js'
import { explicitPath } from '../shared/display-path.js'
import { EXIT_CANNOT_ENTER, EXIT_MISSING, EXIT_MTIME_PARTIAL, EXIT_MTIME_UNAVAILABLE, EXIT_NOT_DIRECTORY } from '../shared/script-exit.js'
import { shellCommand } from '../shared/shell-quote.js'
import { VCS_EXCLUDES } from '../shared/vcs.js'

/**
 * The program that adds each listed file's mtime in the executor, by absolute path as the load-time
 * probe resolved it: GNU find reads the NUL-separated names in one process (findutils >= 4.9), else
 * `xargs stat` does in batches. Absolute, so no `.` or empty PATH entry can run a searched tree's own.
 */
export type MtimeLister = { helper: 'find'; find: string } | { helper: 'stat'; xargs: string; stat: string }

/** What one glob script lists: which rg and mtime helper run, from which root, with which globs. */
export interface GlobCommandOptions {
  /** The rg the load-time probe chose. */
  rg: string
  lister: MtimeLister
  /** The search root, absolute or relative to the workdir. */
  root: string
  /** The model's glob, matched from `root`. */
  glob: string
  /** rg globs (without "!") of denied paths below the root. @default [] */
  excludes?: readonly string[]
}

/**
 * The glob script. rg lists unsorted (its `--sortr=modified` is single-threaded:
 * docs/design.md#glob-sorts-in-process) from inside the root, so path-shaped globs work
 * (docs/design.md#globs-run-from-the-search-root); the executor adds each file's mtime, so a remote or
 * sandboxed backend reads its own files. NUL separates records, so names with newlines survive
 * (docs/design.md#nul-separated-records). It is POSIX sh, so an executor whose shell is dash runs it:
 * with no PIPESTATUS, each side of the pipe writes its status to fd 3, which a command substitution
 * collects, while the listing reaches stdout through fd 4. The script exits with rg's status, or with
 * its own when the root is unusable or the helper failed on a name (a file rg listed must never
 * vanish from the result unmentioned).
 */
export function buildGlobCommand({ rg, lister, root, glob, excludes = [] }: GlobCommandOptions): string {
  const list = shellCommand([
    rg,
    '--files',
    '--null',
    '--no-config',
    '--no-ignore',
    '--hidden',
    '--color=never',
    // The model's glob first: later globs win, so the VCS excludes and the deny rules cannot be overridden.
    `--glob=${glob}`,
    ...VCS_EXCLUDES.map((dir) => `--glob=!${dir}`),
    ...exclusionArgs(excludes),
  ])
  const mtimes =
    lister.helper === 'find'
      ? shellCommand([lister.find, '-files0-from', '-', '-maxdepth', '0', '-printf', '%T@\\t%p\\0'])
      : shellCommand([lister.xargs, '-0', '-r', lister.stat, '--printf=%.9Y\\t%n\\0', '--'])
  const dir = shellCommand([explicitPath(root)])
  return [
    `[ -d ${dir} ] || { [ -e ${dir} ] && exit ${EXIT_NOT_DIRECTORY}; exit ${EXIT_MISSING}; }`,
    `cd -- ${dir} || exit ${EXIT_CANNOT_ENTER}`,
    'exec 4>&1',
    `s=$( { { ${list} </dev/null; echo "r$?" >&3; } | { ${mtimes}; echo "h$?" >&3; } >&4; } 3>&1 )`,
    'r=${s#*r}; r=${r%%[!0-9]*}; h=${s#*h}; h=${h%%[!0-9]*}',
    `[ "$h" -lt 126 ] || exit ${EXIT_MTIME_UNAVAILABLE}`,
    `[ "$h" -eq 0 ] || [ "$r" -gt 2 ] || exit ${EXIT_MTIME_PARTIAL}`,
    'exit "$r"',
  ].join('\n')
}
