// The glob script and its output: list with rg, add mtimes in the executor, parse, order newest first.
import { exclusionArgs } from './access.js'
import { SearchError } from './errors.js'
import { explicitPath } from './display-path.js'
import { EXIT_CANNOT_ENTER, EXIT_MISSING, EXIT_MTIME_PARTIAL, EXIT_MTIME_UNAVAILABLE, EXIT_NOT_DIRECTORY } from './script-exit.js'
import { shellCommand } from './shell-quote.js'
import { VCS_EXCLUDES } from './vcs.js'

/**
 * The program that adds each listed file's mtime in the executor, by absolute path as the load-time
 * probe resolved it: GNU find reads the NUL-separated names in one process (findutils >= 4.9), else
 * `xargs stat` does in batches. Absolute, so no `.` or empty PATH entry can run a searched tree's own.
 */
export type MtimeLister = { helper: 'find'; find: string } | { helper: 'stat'; xargs: string; stat: string }

/**
 * The glob script. rg lists unsorted (its `--sortr=modified` is single-threaded, DESIGN amendment 8)
 * from inside the root, so path-shaped globs work (amendment 6); the executor adds each file's mtime,
 * so a remote or sandboxed backend reads its own files. NUL separates records, so names with newlines
 * survive (amendment 7). It is POSIX sh, so an executor whose shell is dash runs it: with no
 * PIPESTATUS, each side of the pipe writes its status to fd 3, which a command substitution
 * collects, while the listing reaches stdout through fd 4. The script exits with rg's status, or
 * with its own when the root is unusable or the helper failed on a name (a file rg listed must never
 * vanish from the result unmentioned).
 */
export function buildGlobCommand(rg: string, lister: MtimeLister, root: string, glob: string, excludes: readonly string[] = []): string {
  const list = shellCommand([
    rg, '--files', '--null', '--no-config', '--no-ignore', '--hidden', '--color=never',
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

/** One listed file with its modification time as whole seconds and nanoseconds. */
export interface ListedFile {
  name: string
  seconds: number
  nanos: number
}

/**
 * Parses `mtime TAB name NUL` records; a record that does not parse fails the search. An mtime before
 * 1970 is negative, fraction and all (`-1.25` is 1.25 s before the epoch), so its nanoseconds are too.
 */
export function parseGlobListing(stdout: string): ListedFile[] {
  const files: ListedFile[] = []
  for (let pos = 0; pos < stdout.length; ) {
    const end = stdout.indexOf('\0', pos)
    const tab = stdout.indexOf('\t', pos)
    const time = end === -1 || tab === -1 || tab + 1 >= end ? null : MTIME.exec(stdout.slice(pos, tab))
    if (time === null) {
      throw new SearchError('SEARCH_FAILED', `glob could not parse the file listing near ${JSON.stringify(stdout.slice(pos, pos + 80))}`)
    }
    const sign = time[1] === '-' ? -1 : 1
    const nanos = Number((time[3] ?? '').padEnd(9, '0'))
    files.push({ name: stdout.slice(tab + 1, end), seconds: sign * Number(time[2]), nanos: sign * nanos })
    pos = end + 1
  }
  return files
}

// find prints ten fractional digits, stat nine; nanoseconds are the first nine.
const MTIME = /^(-?)(\d+)(?:\.(\d{1,9})\d?)?$/

/** Newest modified first; ties by name, so identical calls give identical pages (amendment 10). */
export function sortNewestFirst(files: ListedFile[]): ListedFile[] {
  return files.sort((a, b) => b.seconds - a.seconds || b.nanos - a.nanos || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
