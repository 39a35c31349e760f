// The grep script: how a model's pattern, path and planned include become one shell command.
import { explicitPath } from '../display-path.js'
import { followArgs, NO_LINKS, searchExclusionArgs, type LinkPlan } from '../links.js'
import { rgCommand } from '../rg-command.js'
import { EXIT_CANNOT_ENTER, EXIT_INCLUDE_ON_FILE, EXIT_MISSING } from '../script-exit.js'
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
  /** What the content index adds: its `--ignore-file=…` (docs/design.md#an-index-chooses-files-rg-decides-matches). @default [] */
  indexFlags?: readonly string[]
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
  indexFlags = [],
}: GrepCommandOptions): string {
  const search = rgCommand({
    rg,
    flags: [
      '--null',
      '--line-number',
      '--with-filename',
      '--no-heading',
      '--color=never',
      '--hidden',
      `--max-columns=${maxLineBytes}`,
      '--max-columns-preview',
      ...followArgs(links),
      ...VCS_EXCLUDES.map((vcs) => `--glob=!${vcs}`),
      ...indexFlags,
    ],
    pattern,
    paths: 'script',
  })
  const filtered = plan.args.length > 0 || plan.subdir !== undefined
  return [...targetPrelude(target, plan, searchExclusionArgs(excludes, links), filtered), search].join('\n')
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
