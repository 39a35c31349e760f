// The glob script and its output: list with rg, add mtimes in the executor, parse, order newest first.
import { SearchError } from './errors.js'
import { explicitPath } from './display-path.js'
import { shellCommand } from './shell-quote.js'
import { VCS_EXCLUDES } from './vcs.js'

// Exit statuses the glob script adds to rg's own 0 (files), 1 (none) and 2 (partial or error).
export const EXIT_ROOT_UNUSABLE = 3
export const EXIT_STAT_UNAVAILABLE = 125

/**
 * The glob script. rg lists unsorted (its `--sortr=modified` is single-threaded, DESIGN amendment 8)
 * from inside the root, so path-shaped globs work (amendment 6); the executor adds each file's mtime,
 * so a remote or sandboxed backend reads its own files: GNU find reads the NUL-separated names in one
 * process (findutils >= 4.9), else `xargs stat` does in batches. NUL separates records, so names with
 * newlines survive (amendment 7). The script exits with rg's status.
 */
export function buildGlobCommand(rg: string, root: string, glob: string): string {
  const list = shellCommand([
    rg, '--files', '--null', '--no-config', '--no-ignore', '--hidden', '--color=never',
    // The model's glob first: later globs win, so the VCS excludes cannot be overridden.
    `--glob=${glob}`,
    ...VCS_EXCLUDES.map((dir) => `--glob=!${dir}`),
  ])
  return [
    `cd -- ${shellCommand([explicitPath(root)])} || exit ${EXIT_ROOT_UNUSABLE}`,
    'if find -files0-from /dev/null -maxdepth 0 >/dev/null 2>&1; then',
    `  ${list} </dev/null | find -files0-from - -maxdepth 0 -printf '%T@\\t%p\\0'`,
    'else',
    `  ${list} </dev/null | xargs -0 -r stat --printf='%.9Y\\t%n\\0' --`,
    'fi',
    `s=("\${PIPESTATUS[@]}"); if [ "\${s[1]}" -ge 126 ]; then exit ${EXIT_STAT_UNAVAILABLE}; fi; exit "\${s[0]}"`,
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
