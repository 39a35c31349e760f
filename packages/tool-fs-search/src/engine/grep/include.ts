// What a model's `include` glob means, planned once: refused, a file filter, or a directory to search.
import { VCS_EXCLUDES } from '../vcs.js'

/** What an `include` glob becomes: rg filter arguments, and a subdirectory to narrow the search to. */
export interface IncludePlan {
  args: string[]
  /** A plain directory prefix of the include (`src` of `src/**`), searched instead of the whole target. */
  subdir?: string
  /** A plain name (`src`): searched as that directory when the target holds one, else filtered by `args`. */
  name?: string
}

// `X/**` and `X/**/*` mean "every file under X". As a --glob they also match the directories under X,
// and a --glob that matches a directory re-opens it even when .gitignore hides it
// (docs/design.md#include-must-not-reopen-ignored-trees).
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
  if (withoutDotSlash(include).startsWith('/'))
    return 'include is matched under the search path, so it must be relative; put the directory in path'
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
 * (docs/design.md#globs-run-from-the-search-root). A directory searched by name escapes the VCS
 * excludes, so a VCS one stays a filter.
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
