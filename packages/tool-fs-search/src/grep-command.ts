// The grep script: how a model's pattern, path and include become one shell command, and how its
// output says where the printed paths are relative to.
import path from 'node:path'
import { SearchError } from './errors.js'
import { explicitPath } from './display-path.js'
import { shellCommand } from './shell-quote.js'
import { VCS_EXCLUDES } from './vcs.js'

/** What an `include` glob becomes: rg filter arguments, and a subdirectory to narrow the search to. */
export interface IncludePlan {
  args: string[]
  /** A plain directory prefix of the include (`src` of `src/**`), searched instead of the whole target. */
  subdir?: string
}

// `X/**` and `X/**/*` mean "every file under X". As a --glob they also match the directories under X,
// and a --glob that matches a directory re-opens it even when .gitignore hides it (DESIGN amendment 5).
const EVERY_FILE_UNDER = /^((?:[^*?[\]{}/]+\/)+)\*\*(?:\/\*)?$/
// `*`, `**`, `**/*`: every file.
const EVERY_FILE = /^(?:\*\*\/)*\*+$/
// A glob ending in `**` (or `**/*`) matches a directory and everything in it, ignored or not.
const ENDS_IN_EVERYTHING = /(?:^|\/)\*\*(?:\/\*+)?$/

function withoutDotSlash(glob: string): string {
  let stripped = glob
  while (stripped.startsWith('./')) stripped = stripped.slice(2)
  return stripped
}

/**
 * Why an include cannot be honoured as asked, or undefined. It is matched from the search path, so it
 * is relative and stays inside it; and it must not end in `**` after a prefix with wildcards, which rg
 * would apply to ignored directories too (a plain `src/**` is fine: it narrows the search instead).
 */
export function includeProblem(include: string): string | undefined {
  const glob = withoutDotSlash(include)
  if (glob.startsWith('/')) return 'include is matched under the search path, so it must be relative; put the directory in path'
  if (glob.split('/').includes('..')) return 'include must not contain "..": put the directory in path'
  // A plain `X/**` is narrowed (or, under a VCS directory, left to the excludes that always win).
  if (EVERY_FILE.test(glob) || EVERY_FILE_UNDER.test(glob) || !ENDS_IN_EVERYTHING.test(glob)) return undefined
  return `include ${JSON.stringify(include)} ends in "**", so rg would also search the ignored directories it matches; name the files (e.g. "${glob.replace(/\*\*(?:\/\*+)?$/, '**/*.ts')}") or pass the directory as path`
}

/**
 * Plans an `include` glob. A name-only glob (`*.ts`, with or without leading `**` segments) becomes a file type: types filter
 * files and never override ignore rules. Match-everything globs add no filter; `X/**` narrows the
 * search to X instead of globbing. Other path-shaped globs stay a --glob, matched from the search
 * root (amendment 6).
 */
export function planInclude(include: string | undefined): IncludePlan {
  if (include === undefined) return { args: [] }
  const glob = withoutDotSlash(include)
  if (EVERY_FILE.test(glob)) return { args: [] }
  const subdir = EVERY_FILE_UNDER.exec(glob)?.[1]?.slice(0, -1)
  // A directory searched by name escapes the VCS excludes, so `.git/**` stays a glob they override.
  const vcs = subdir?.split('/').some((segment) => (VCS_EXCLUDES as readonly string[]).includes(segment))
  if (subdir !== undefined && vcs !== true) return { args: [], subdir }
  let name = glob
  while (name.startsWith('**/')) name = name.slice(3)
  // rg's --type-add splits on ':' and has an `include:` directive, so a glob with ':' stays a --glob.
  if (!name.includes('/') && !name.includes(':')) return { args: [`--type-add=dshinclude:${name}`, '--type=dshinclude'] }
  return { args: [`--glob=${glob}`] }
}

/** grep's script exit status when the target is a directory it cannot enter. */
export const EXIT_TARGET_UNUSABLE = 3

/**
 * The grep script. rg prints `--null` line output with `--max-columns` (DESIGN's measured format); the
 * pattern follows `-e` and the target follows `--`, so neither can become a flag; `--no-config` keeps a
 * user's config from injecting flags; stdin is /dev/null (amendment 2). A directory target is searched
 * from inside it, so path-shaped includes match from the path given (amendment 6). The script first
 * prints `D` (rg runs inside the target directory) or `F` (a file, from the workdir), NUL-terminated:
 * what the paths rg prints are relative to.
 */
export function buildGrepCommand(rg: string, pattern: string, target: string, include: string | undefined, maxLineBytes: number): string {
  const plan = planInclude(include)
  const dir = shellCommand([explicitPath(target)])
  const inside = plan.subdir === undefined ? '.' : shellCommand([explicitPath(plan.subdir)])
  const rgCommand = shellCommand([
    rg, '--no-config', '--null', '--line-number', '--with-filename', '--no-heading', '--color=never',
    '--hidden', `--max-columns=${maxLineBytes}`, '--max-columns-preview',
    ...VCS_EXCLUDES.map((vcs) => `--glob=!${vcs}`),
    ...plan.args,
    '-e', pattern,
  ])
  return [
    `if [ -d ${dir} ]; then cd -- ${dir} || exit ${EXIT_TARGET_UNUSABLE}; printf 'D\\0'; [ -e ${inside} ] || exit 1; set -- ${inside}`,
    `else printf 'F\\0'; set -- ${dir}; fi`,
    `${rgCommand} -- "$1" </dev/null`,
  ].join('\n')
}

/** Where the paths in rg's output are relative to, from the script's first record; the rest is rg's. */
export function splitGrepOutput(stdout: string, workdir: string, target: string): { base: string; body: string } {
  if (stdout.startsWith('D\0')) return { base: path.resolve(workdir, target), body: stdout.slice(2) }
  if (stdout.startsWith('F\0')) return { base: workdir, body: stdout.slice(2) }
  throw new SearchError('SEARCH_FAILED', `grep could not parse its script output near ${JSON.stringify(stdout.slice(0, 80))}; the search result cannot be trusted.`)
}
