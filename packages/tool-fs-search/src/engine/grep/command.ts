// The grep script: how a model's pattern, path and planned include become one shell command.
import { explicitPath } from '../display-path.js'
import { followArgs, NO_LINKS, searchExclusionArgs, type LinkPlan } from '../links.js'
import { rgArgv, rgCommand } from '../rg-command.js'
import { EXIT_CANNOT_ENTER, EXIT_INCLUDE_ON_FILE, EXIT_MISSING, EXIT_NO_XARGS } from '../script-exit.js'
import { shellCommand } from '../shell-quote.js'
import { VCS_EXCLUDES } from '../vcs.js'
import type { IncludePlan } from './include.js'

/** What one grep script searches: the rg to run, the model's pattern and path, the planned include, the policy's exclusions. */
export interface GrepCommandOptions {
  /** The rg the load-time probe chose. */
  rg: string
  pattern: string
  /** The file or directory to search, as the model gave it. */
  target: string
  /** The include, as `planInclude` planned it. */
  plan: IncludePlan
  /** rg globs (without "!") of denied paths below the target. @default [] */
  excludes?: readonly string[]
  /** The links below the target it follows and those it must not (docs/design.md#symbolic-links). @default NO_LINKS */
  links?: LinkPlan
  /** Bytes of a matched line rg prints before it previews the rest (`--max-columns`). */
  maxLineBytes: number
  /** The files the content index chose (docs/design.md#an-index-chooses-files-rg-decides-matches). @default a full scan */
  index?: IndexRoute
}

/**
 * What the content index gives a grep script: an ignore file that keeps rg's walk to the files it
 * could not name (docs/design.md#an-index-chooses-files-rg-decides-matches), and a file of the paths
 * rg searches by name (docs/design.md#named-candidates). Neither: a full scan; the ignore file alone:
 * every candidate walked; the named file alone: nothing left to walk.
 */
export interface IndexRoute {
  ignoreFile?: string
  namedFile?: string
}

/** An rg run of a grep script: the flags that choose which files it reads, and those that say what it prints. */
export interface GrepRg {
  rg: string
  /** Flags that decide which files rg's walk reaches (`--hidden`, globs, types, links). */
  selection: readonly string[]
  /** Every other flag: how rg matches and what it prints. */
  output: readonly string[]
  pattern: string
}

/**
 * The grep script. rg prints `--null` line output with `--max-columns`
 * (docs/design.md#grep-reads-rgs-null-line-output); `rgCommand` puts the pattern after `-e`, and the
 * prelude's `set --` the target after `--` (docs/design.md#no-value-becomes-a-flag). A directory target is searched from inside
 * it, so path-shaped includes match from the path given (docs/design.md#globs-run-from-the-search-root).
 * The script first prints `D` (rg runs inside the target directory) or `F` (a file, from the workdir),
 * NUL-terminated: what the paths rg prints are relative to. It is POSIX sh, so an executor whose shell
 * is dash runs it. rg skips include filters for a file it is given by name, so an include with a file
 * target exits with its own status rather than be ignored; so does a target that is missing or
 * cannot be entered.
 */
export function buildGrepCommand({
  rg,
  pattern,
  target,
  plan,
  excludes = [],
  links = NO_LINKS,
  maxLineBytes,
  index,
}: GrepCommandOptions): string {
  const search = indexedSearch(
    {
      rg,
      selection: grepSelection(links),
      output: [
        '--null',
        '--line-number',
        '--with-filename',
        '--no-heading',
        '--color=never',
        `--max-columns=${maxLineBytes}`,
        '--max-columns-preview',
      ],
      pattern,
    },
    index,
  )
  return [...grepPrelude({ target, plan, excludes, links }), search].join('\n')
}

/** The prelude of dsh's grep script: also the prelude of its file list. */
export function grepPrelude({
  target,
  plan,
  excludes = [],
  links = NO_LINKS,
}: Pick<GrepCommandOptions, 'target' | 'plan' | 'excludes' | 'links'>): string[] {
  const filtered = plan.args.length > 0 || plan.subdir !== undefined
  return targetPrelude(target, plan, searchExclusionArgs(excludes, links), filtered)
}

/** The script that lists what dsh's grep walk reaches, for the index to name its candidates (docs/design.md#named-candidates). */
export function grepFileListCommand(
  options: Pick<GrepCommandOptions, 'rg' | 'target' | 'plan' | 'excludes'> & { links: LinkPlan },
): string {
  return fileListCommand(options.rg, grepSelection(options.links), grepPrelude(options))
}

/** The selection flags every grep script gives rg, with `extra` (a type) before the VCS exclusions. */
export function grepSelection(links: LinkPlan, extra: readonly string[] = []): string[] {
  return ['--hidden', ...extra, ...followArgs(links), ...VCS_EXCLUDES.map((vcs) => `--glob=!${vcs}`)]
}

/**
 * The rg part of a grep script, with the index's route (docs/design.md#named-candidates). Named files
 * go to rg in batches through `xargs -0`, each batch's "no match" (1) made 0, so xargs' 123 means a
 * batch failed (rg's 2: an unreadable file); then rg walks with the ignore file for the rest. The
 * result has rg's statuses: 2 when either part failed partly, another when xargs or sh could not run.
 */
export function indexedSearch({ rg, selection, output, pattern }: GrepRg, route: IndexRoute = {}): string {
  const { ignoreFile, namedFile } = route
  const walk = rgCommand({
    rg,
    flags: [...output, ...selection, ...(ignoreFile === undefined ? [] : [`--ignore-file=${ignoreFile}`])],
    pattern,
    paths: 'script',
  })
  if (namedFile === undefined) return walk
  // Named paths skip the selection flags, so they get the output flags alone.
  const rgNamed = shellCommand(rgArgv({ rg, flags: output, pattern }))
  // A pattern rg rejects is rejected once, as a full scan's is, not by each batch and the walk: a
  // batch's 2 is checked on /dev/null (rg reads nothing there, so 2 is the pattern), and then 255 stops
  // xargs, which says so on its own stderr; the batches write to the script's stderr through 3. A
  // batch given no names (xargs runs one for no input) searches nothing.
  const devNull = `${rgNamed} -- /dev/null </dev/null >/dev/null 2>&1`
  const batch = [
    'exec 2>&3 3>&-',
    '[ "$#" -eq 0 ] && exit 0',
    `${rgNamed} -- "$@" </dev/null; s=$?; [ "$s" -eq 1 ] && exit 0`,
    `[ "$s" -eq 2 ] && { ${devNull}; [ "$?" -eq 2 ] && exit 255; }`,
    'exit "$s"',
  ].join('\n')
  return [
    // Batches of up to 1 MiB where the stack limit allows arguments of 2 MiB or more (Linux gives
    // arguments and environment a quarter of it); xargs' default of 128 KiB started rg once for every
    // 3,000 or so names (docs/design.md#named-candidates).
    `{ m=131072; s=$(ulimit -s 2>/dev/null); { [ "$s" = unlimited ] || [ "$s" -ge 8192 ] 2>/dev/null; } && m=1048576`,
    `xargs -0 -s "$m" sh -c ${shellCommand([batch])} sh <${shellCommand([namedFile])} 3>&2 2>/dev/null; n=$?`,
    // GNU's and BusyBox's xargs exit 123 when a batch failed (rg's 2, an unreadable file) and 124 when
    // one stopped them; BSD's exit 1 for both. Past 0 and 123, the pattern is checked again here.
    `p=0; if [ "$n" -ne 0 ] && [ "$n" -ne 123 ]; then ${devNull}; p=$?; fi`,
    'if [ "$p" -eq 2 ]; then r=2; else',
    ignoreFile === undefined ? 'r=1' : `${walk}; r=$?`,
    // Named files a batch failed on or never got make the search's status 2 at least; past 124, xargs
    // could not run a batch, and its own message is gone with its stderr: what it would say, in ours.
    'if [ "$n" -ne 0 ]; then [ "$r" -gt 2 ] || r=2; fi',
    `if [ "$n" -gt 124 ]; then r=$n; echo "dsh: xargs exited with status $n: a batch of named files was not searched" >&2; fi`,
    'fi',
    '(exit "$r"); }',
  ].join('\n')
}

/**
 * The script that lists what a grep script's walk reaches, for the index to name its candidates
 * (docs/design.md#named-candidates): the same prelude and selection flags, rg's `--files`. It exits
 * 9 when the executor has no `xargs -0`, which naming needs; a file target lists nothing to keep.
 */
export function fileListCommand(rg: string, selection: readonly string[], prelude: readonly string[]): string {
  return [
    `printf '' | xargs -0 true >/dev/null 2>&1 || exit ${EXIT_NO_XARGS}`,
    ...prelude,
    rgCommand({ rg, flags: ['--files', '--null', ...selection], paths: 'script' }),
  ].join('\n')
}

/**
 * The lines before rg in both grep scripts: a directory target is entered (`D`, rg's arguments set
 * from inside it, `exclusions` after the include's), a file target named (`F`, or its own exit status when the search is `filtered`,
 * since rg would ignore the filters for it), and a missing one exits with its own status.
 */
export function targetPrelude(target: string, plan: IncludePlan, exclusions: readonly string[], filtered: boolean): string[] {
  const dir = shellCommand([explicitPath(target)])
  return [
    `if [ -d ${dir} ]; then cd -- ${dir} || exit ${EXIT_CANNOT_ENTER}; printf 'D\\0'; ${searchedFromInside(plan, exclusions)}`,
    `elif [ -e ${dir} ]; then ${filtered ? `exit ${EXIT_INCLUDE_ON_FILE}` : `printf 'F\\0'; set -- -- ${dir}`}`,
    `else exit ${EXIT_MISSING}; fi`,
  ]
}

/**
 * The script's `set --` of rg's filter and target arguments inside the target directory. The deny
 * exclusions come after the include's globs, since rg obeys the later of two globs that match.
 */
export function searchedFromInside(plan: IncludePlan, deny: readonly string[]): string {
  const only = (inside: string) => `set -- ${shellCommand([...deny, '--', explicitPath(inside)])}`
  if (plan.subdir !== undefined) {
    const inside = shellCommand([explicitPath(plan.subdir)])
    return `[ -e ${inside} ] || exit 1; ${only(plan.subdir)}`
  }
  const filtered = `set -- ${shellCommand([...plan.args, ...deny, '--', '.'])}`
  if (plan.name === undefined) return filtered
  const named = shellCommand([explicitPath(plan.name)])
  return `if [ -d ${named} ]; then ${only(plan.name)}; else ${filtered}; fi`
}
