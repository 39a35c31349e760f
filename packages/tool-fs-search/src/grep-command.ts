// The grep script: how a model's pattern, path and include become one shell command, and how its
// output says where the printed paths are relative to.
import path from 'node:path'
import { exclusionArgs } from './access.js'
import { SearchError } from './errors.js'
import { explicitPath } from './display-path.js'
import { EXIT_CANNOT_ENTER, EXIT_INCLUDE_ON_FILE, EXIT_MISSING } from './script-exit.js'
import { shellCommand } from './shell-quote.js'
import { VCS_EXCLUDES } from './vcs.js'

/** What an `include` glob becomes: rg filter arguments, and a subdirectory to narrow the search to. */
export interface IncludePlan {
  args: string[]
  /** A plain directory prefix of the include (`src` of `src/**`), searched instead of the whole target. */
  subdir?: string
  /** A plain name (`src`): searched as that directory when the target holds one, else filtered by `args`. */
  name?: string
}

// `X/**` and `X/**/*` mean "every file under X". As a --glob they also match the directories under X,
// and a --glob that matches a directory re-opens it even when .gitignore hides it (DESIGN amendment 5).
const EVERY_FILE_UNDER = /^((?:[^*?[\]{}/]+\/)+)\*\*(?:\/\*)?$/
// `*`, `**`, `**/*`: every file.
const EVERY_FILE = /^(?:\*\*\/)*\*+$/
// A glob ending in `**` (or `**/*`) matches a directory and everything in it, ignored or not.
const ENDS_IN_EVERYTHING = /(?:^|\/)\*\*(?:\/\*+)?$/
const GLOB_META = /[*?[\]{}]/

function withoutDotSlash(glob: string): string {
  let stripped = glob
  while (stripped.startsWith('./')) stripped = stripped.slice(2)
  return stripped
}

/**
 * An include as rg must get it: rg matches `src/./a/*.ts` or `src//a` against nothing, so `.` and
 * empty segments go. A trailing `/` (a directory) is reported apart, since the glob then has none.
 */
function normalizeInclude(include: string): { glob: string; directory: boolean } {
  const glob = include
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/')
  return { glob, directory: include.endsWith('/') && glob !== '' }
}

/**
 * Why an include cannot be honoured as asked, or undefined. It is matched from the search path, so it
 * is relative and stays inside it; a leading `!` (even after `./`) would negate it; a trailing `/`
 * after a wildcard names directories, not files; and it must not end in `**` after a prefix with
 * wildcards, which rg would apply to ignored directories too (a plain `src/**` is fine: it narrows
 * the search instead).
 */
export function includeProblem(include: string): string | undefined {
  if (withoutDotSlash(include).startsWith('/')) return 'include is matched under the search path, so it must be relative; put the directory in path'
  const { glob, directory } = normalizeInclude(include)
  if (glob.startsWith('!')) {
    return `include must not start with "!" (after "./"): a leading "!" would negate the glob; to search a directory named "${glob.split('/')[0]}", pass it as path`
  }
  if (glob.split('/').includes('..')) return 'include must not contain "..": put the directory in path'
  if (directory && GLOB_META.test(glob)) {
    return `include ${JSON.stringify(include)} ends in "/", so it names directories, not files; name the files (e.g. "${glob}") or pass a directory as path`
  }
  // A plain `X/**` is narrowed (or, under a VCS directory, left to the excludes that always win).
  if (EVERY_FILE.test(glob) || EVERY_FILE_UNDER.test(glob) || !ENDS_IN_EVERYTHING.test(glob)) return undefined
  return `include ${JSON.stringify(include)} ends in "**", so rg would also search the ignored directories it matches; name the files (e.g. "${glob.replace(/\*\*(?:\/\*+)?$/, '**/*.ts')}") or pass the directory as path`
}

function isVcs(dir: string): boolean {
  return dir.split('/').some((segment) => (VCS_EXCLUDES as readonly string[]).includes(segment))
}

/**
 * Plans an `include` glob. A name-only glob (`*.ts`, with or without leading `**` segments) becomes a
 * file type: types filter files and never override ignore rules. Match-everything globs add no
 * filter; `X/**` and `X/` narrow the search to X instead of globbing, and a plain name narrows to that
 * directory when there is one. Other path-shaped globs stay a --glob, matched from the search root
 * (amendment 6). A directory searched by name escapes the VCS excludes, so a VCS one stays a filter.
 */
export function planInclude(include: string | undefined): IncludePlan {
  if (include === undefined) return { args: [] }
  const { glob: normalized, directory } = normalizeInclude(include)
  const glob = directory ? `${normalized}/**` : normalized
  if (glob === '' || EVERY_FILE.test(glob)) return { args: [] }
  const subdir = EVERY_FILE_UNDER.exec(glob)?.[1]?.slice(0, -1)
  if (subdir !== undefined && !isVcs(subdir)) return { args: [], subdir }
  let name = glob
  while (name.startsWith('**/')) name = name.slice(3)
  // rg's --type-add splits on ':' and has an `include:` directive, so a glob with ':' stays a --glob.
  const args = !name.includes('/') && !name.includes(':') ? [`--type-add=dshinclude:${name}`, '--type=dshinclude'] : [`--glob=${glob}`]
  const plain = !glob.includes('/') && !GLOB_META.test(glob) && !isVcs(glob)
  return plain ? { args, name: glob } : { args }
}

/**
 * The grep script. rg prints `--null` line output with `--max-columns` (DESIGN's measured format); the
 * pattern follows `-e` and the target follows `--`, so neither can become a flag; `--no-config` keeps a
 * user's config from injecting flags; stdin is /dev/null (amendment 2). A directory target is searched
 * from inside it, so path-shaped includes match from the path given (amendment 6). The script first
 * prints `D` (rg runs inside the target directory) or `F` (a file, from the workdir), NUL-terminated:
 * what the paths rg prints are relative to. It is POSIX sh, so an executor whose shell is dash runs it.
 * rg skips include filters for a file it is given by name, so an include with a file target exits
 * with its own status rather than be ignored; so does a target that is missing or cannot be entered.
 */
export function buildGrepCommand(rg: string, call: GrepCommandCall, maxLineBytes: number): string {
  const { pattern, target, include, excludes = [] } = call
  const plan = planInclude(include)
  const dir = shellCommand([explicitPath(target)])
  const rgCommand = shellCommand([
    rg, '--no-config', '--null', '--line-number', '--with-filename', '--no-heading', '--color=never',
    '--hidden', `--max-columns=${maxLineBytes}`, '--max-columns-preview',
    ...VCS_EXCLUDES.map((vcs) => `--glob=!${vcs}`),
    '-e', pattern,
  ])
  const filtered = plan.args.length > 0 || plan.subdir !== undefined
  return [
    `if [ -d ${dir} ]; then cd -- ${dir} || exit ${EXIT_CANNOT_ENTER}; printf 'D\\0'; ${searchedFromInside(plan, exclusionArgs(excludes))}`,
    `elif [ -e ${dir} ]; then ${filtered ? `exit ${EXIT_INCLUDE_ON_FILE}` : `printf 'F\\0'; set -- -- ${dir}`}`,
    `else exit ${EXIT_MISSING}; fi`,
    `${rgCommand} "$@" </dev/null`,
  ].join('\n')
}

/**
 * The script's `set --` of rg's filter and target arguments inside the target directory. The deny
 * exclusions come after the include's globs, since rg obeys the later of two globs that match.
 */
function searchedFromInside(plan: IncludePlan, deny: readonly string[]): string {
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

/** What one grep call searches: the model's pattern, path and include, and the policy's exclusions. */
export interface GrepCommandCall {
  pattern: string
  target: string
  include: string | undefined
  /** rg globs (without "!") of denied paths below the target. @default [] */
  excludes?: readonly string[]
}

/** Whether rg searched inside a directory or one file, where its printed paths are relative to, and the rest of the output. */
export interface GrepOutput {
  searched: 'directory' | 'file'
  base: string
  body: string
}

/** Where the paths in rg's output are relative to, from the script's first record; the rest is rg's. */
export function splitGrepOutput(stdout: string, workdir: string, target: string): GrepOutput {
  if (stdout.startsWith('D\0')) return { searched: 'directory', base: path.resolve(workdir, target), body: stdout.slice(2) }
  if (stdout.startsWith('F\0')) return { searched: 'file', base: workdir, body: stdout.slice(2) }
  throw new SearchError('SEARCH_FAILED', `grep could not parse its script output near ${JSON.stringify(stdout.slice(0, 80))}; the search result cannot be trusted.`)
}
