// The glob script: list with rg from inside the root, and add each file's mtime in the executor (or, from the index, in the tool).
import { explicitPath } from '../display-path.js'
import { followArgs, NO_LINKS, searchExclusionArgs, type LinkPlan } from '../links.js'
import { findsCommand } from './finds.js'
import { rgCommand } from '../rg-command.js'
import { EXIT_CANNOT_ENTER, EXIT_MISSING, EXIT_MTIME_PARTIAL, EXIT_MTIME_UNAVAILABLE, EXIT_NOT_DIRECTORY } from '../script-exit.js'
import { shellCommand } from '../shell-quote.js'
import { VCS_EXCLUDES } from '../vcs.js'

/**
 * The program that adds each listed file's mtime in the executor, by absolute path as the load-time
 * probe resolved it: GNU find reads the NUL-separated names (findutils >= 4.9), several finds at once
 * when perl can split the names among them and the executor has cores for them (`finds`:
 * docs/design.md#glob-stats-on-every-core), else one; else
 * `xargs stat` does in batches, GNU stat printing nanoseconds itself, any other stat (BusyBox `-c %Y`,
 * BSD `-f %m`) printing whole seconds one per line for sh to pair with the names. Absolute, so no `.`
 * or empty PATH entry can run a searched tree's own. With `dd`, when the executor has one that takes
 * `iflag=fullblock`, the helper's output reaches the tool in large blocks
 * (docs/design.md#glob-output-arrives-in-large-blocks).
 */
export type MtimeLister = (
  | { helper: 'find'; find: string }
  | { helper: 'finds'; find: string; perl: string; count: number }
  | { helper: 'stat'; xargs: string; stat: string }
  | { helper: 'stat-lines'; xargs: string; stat: string; sh: string; formatOption: '-c' | '-f' }
) & { dd?: string }

/** The blocks dd gathers the helper's output into: a few of the executor's 64 KiB reads each. */
export const DD_BLOCK = '256k'

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
  /** The links below the root it follows and those it must not (docs/design.md#symbolic-links). @default NO_LINKS */
  links?: LinkPlan
  /**
   * The index gives the times (docs/design.md#glob-reads-times-from-the-index): the script prints rg's
   * names alone, and no helper runs. @default false
   */
  timesFromIndex?: boolean
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
 * vanish from the result unmentioned), or when dd failed (what it passed on may be cut).
 */
export function buildGlobCommand({
  rg,
  lister,
  root,
  glob,
  excludes = [],
  links = NO_LINKS,
  timesFromIndex = false,
}: GlobCommandOptions): string {
  const list = rgCommand({
    rg,
    flags: [
      '--files',
      '--null',
      '--no-ignore',
      '--hidden',
      '--color=never',
      ...followArgs(links),
      // The model's glob first: later globs win, so the VCS excludes and the deny rules cannot be overridden.
      `--glob=${glob}`,
      ...VCS_EXCLUDES.map((dir) => `--glob=!${dir}`),
      ...searchExclusionArgs(excludes, links),
    ],
  })
  const dir = shellCommand([explicitPath(root)])
  return [
    `[ -d ${dir} ] || { [ -e ${dir} ] && exit ${EXIT_NOT_DIRECTORY}; exit ${EXIT_MISSING}; }`,
    `cd -- ${dir} || exit ${EXIT_CANNOT_ENTER}`,
    ...(timesFromIndex ? [`exec ${list}`] : mtimePipeline(list, lister)),
  ].join('\n')
}

/**
 * The script lines that pipe `list` (NUL-separated names) through the mtime helper, and dd when there
 * is one, to stdout, and exit with `list`'s status or the helper's (see `buildGlobCommand`).
 */
export function mtimePipeline(list: string, lister: MtimeLister): string[] {
  const helper = `{ ${mtimeCommand(lister)}; echo "h$?" >&3; }`
  const dd = lister.dd === undefined ? undefined : ddCommand(lister.dd)
  return [
    'exec 4>&1',
    `s=$( { { ${list}; echo "r$?" >&3; } | ${dd === undefined ? helper : `{ ${helper} | ${dd}; echo "d$?" >&3; }`} >&4; } 3>&1 )`,
    'r=${s#*r}; r=${r%%[!0-9]*}; h=${s#*h}; h=${h%%[!0-9]*}',
    ...(dd === undefined ? [] : ['d=${s#*d}; d=${d%%[!0-9]*}', `[ "$d" -eq 0 ] || exit ${EXIT_MTIME_UNAVAILABLE}`]),
    `[ "$h" -lt 126 ] || exit ${EXIT_MTIME_UNAVAILABLE}`,
    `[ "$h" -eq 0 ] || [ "$r" -gt 2 ] || exit ${EXIT_MTIME_PARTIAL}`,
    'exit "$r"',
  ]
}

/** dd gathering the helper's output into DD_BLOCK blocks (docs/design.md#glob-output-arrives-in-large-blocks). */
export function ddCommand(dd: string): string {
  return shellCommand([dd, `bs=${DD_BLOCK}`, 'iflag=fullblock', 'status=none'])
}

/** The helper's side of the pipe: NUL-separated names in, `mtime TAB name NUL` records out. */
export function mtimeCommand(lister: MtimeLister): string {
  switch (lister.helper) {
    case 'find':
      return shellCommand([lister.find, '-files0-from', '-', '-maxdepth', '0', '-printf', '%T@\\t%p\\0'])
    case 'finds':
      return findsCommand(lister)
    case 'stat':
      return shellCommand([lister.xargs, '-0', '-r', lister.stat, '--printf=%.9Y\\t%n\\0', '--'])
    case 'stat-lines':
      // No -r, which not every xargs takes: the script returns at once when xargs runs it with no names.
      return shellCommand([lister.xargs, '-0', lister.sh, '-c', statLinesScript(lister), 'sh'])
  }
}

/**
 * The sh script each stat-lines batch runs, its names in "$@": one stat for the batch prints a time per
 * line, in order, and the loop pairs each with its name (a name may hold a newline; a time cannot).
 * The times are split once, on newlines only, with globbing off. When stat fails on some name the
 * batch goes again one name at a time, so each failure is reported once, on stderr, and the others
 * still listed; the script then exits 1, which xargs reports as 123.
 */
function statLinesScript({ stat, formatOption }: { stat: string; formatOption: '-c' | '-f' }): string {
  const times = shellCommand([stat, formatOption, formatOption === '-c' ? '%Y' : '%m', '--'])
  return [
    '[ $# -gt 0 ] || exit 0',
    `if t=$(${times} "$@" 2>/dev/null); then`,
    "  IFS='\n'",
    '  set -f',
    `  for m in $t; do printf '%s\\t%s\\000' "$m" "$1"; shift; done`,
    'else',
    '  s=0',
    `  for f in "$@"; do if t=$(${times} "$f"); then printf '%s\\t%s\\000' "$t" "$f"; else s=1; fi; done`,
    '  exit $s',
    'fi',
  ].join('\n')
}
