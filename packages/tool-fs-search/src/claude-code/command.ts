// The Grep script of Claude Code's surface: the dsh grep script with the mode's rg flags, and mtimes for a file list.
import { mtimePipeline, type MtimeLister } from '../engine/glob/command.js'
import { fileListCommand, grepSelection, indexedSearch, targetPrelude, type IndexRoute } from '../engine/grep/command.js'
import type { IncludePlan } from '../engine/grep/include.js'
import { NO_LINKS, searchExclusionArgs, type LinkPlan } from '../engine/links.js'

/** What one Grep script searches, and how rg prints what it finds. */
export interface ClaudeGrepCommandOptions {
  rg: string
  /** The mtime helper: files_with_matches lists newest first. */
  lister: MtimeLister
  /** The output mode's rg flags (`GrepMode.rgFlags`). */
  modeFlags: readonly string[]
  /** Whether rg's file list goes through the mtime helper (`GrepMode.listsMtimes`). */
  listsMtimes: boolean
  pattern: string
  target: string
  plan: IncludePlan
  /** rg globs (without "!") of denied paths below the target. */
  excludes: readonly string[]
  /** The links below the target it follows and those it must not (docs/design.md#symbolic-links). @default NO_LINKS */
  links?: LinkPlan
  caseInsensitive: boolean
  multiline: boolean
  type: string | undefined
  /** The files the content index chose (docs/design.md#an-index-chooses-files-rg-decides-matches). @default a full scan */
  index?: IndexRoute
}

/**
 * The script (buildGrepCommand's, docs/design.md#grep-reads-rgs-null-line-output): `D` or `F` and a
 * NUL first, then rg's output. The pattern follows `-e` and the type is one `--type=` word, so neither
 * can become a flag (a type of `--pre` is an unknown type). A glob or type with a file target exits
 * with its own status: rg would ignore both for a file named directly. For files_with_matches the
 * names go through the mtime helper as glob's do, its status and rg's collected the same way.
 */
export function buildClaudeGrepCommand(options: ClaudeGrepCommandOptions): string {
  const { rg, pattern, caseInsensitive, multiline } = options
  const search = indexedSearch(
    {
      rg,
      selection: claudeGrepSelection(options),
      output: [
        '--null',
        '--with-filename',
        '--color=never',
        ...options.modeFlags,
        ...(caseInsensitive ? ['--ignore-case'] : []),
        ...(multiline ? ['--multiline', '--multiline-dotall'] : []),
      ],
      pattern,
    },
    options.index,
  )
  const prelude = claudeGrepPrelude(options)
  if (!options.listsMtimes) return [...prelude, search].join('\n')
  return [...prelude, ...mtimePipeline(search, options.lister)].join('\n')
}

/** The script that lists what this Grep's walk reaches, for the index to name its candidates (docs/design.md#named-candidates). */
export function claudeGrepFileListCommand(
  options: Pick<ClaudeGrepCommandOptions, 'rg' | 'target' | 'plan' | 'excludes' | 'links' | 'type'>,
): string {
  return fileListCommand(options.rg, claudeGrepSelection(options), claudeGrepPrelude(options))
}

function claudeGrepSelection({ links = NO_LINKS, type }: Pick<ClaudeGrepCommandOptions, 'links' | 'type'>): string[] {
  return grepSelection(links, type === undefined ? [] : [`--type=${type}`])
}

function claudeGrepPrelude({
  target,
  plan,
  excludes,
  links = NO_LINKS,
  type,
}: Pick<ClaudeGrepCommandOptions, 'target' | 'plan' | 'excludes' | 'links' | 'type'>): string[] {
  const filtered = plan.args.length > 0 || plan.subdir !== undefined || type !== undefined
  return targetPrelude(target, plan, searchExclusionArgs(excludes, links), filtered)
}
