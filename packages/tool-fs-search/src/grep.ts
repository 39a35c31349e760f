import path from 'node:path'
import { defineTool, type BashRunResult, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GrepArgs } from './args.js'
import { SearchError } from './errors.js'
import { parseRgOutput, type RgOutput } from './grep-parse.js'
import { formatGroups, groupByFile, previewLine, retainGrepMatches, type GrepMatch, type RetainedGrep } from './grep-retain.js'
import { GREP_DESCRIPTION } from './prompts.js'
import { displayFrom, explicitPath, incompleteNote, isPatternError, rgErrorLines, runSearchCommand, stderrExcerpt, type SearchContext } from './search-core.js'
import { shellCommand } from './shell-quote.js'
import { saveFormattedResult, spillSentence, type SpillOutcome } from './spill.js'
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

/**
 * Plans an `include` glob. A name-only glob becomes a file type: types filter files and never override
 * ignore rules. Match-everything globs add no filter; `X/**` narrows the search to X instead of
 * globbing. Other path-shaped globs stay a --glob, matched from the search root (amendment 6).
 */
export function planInclude(include: string | undefined): IncludePlan {
  if (include === undefined) return { args: [] }
  let glob = include
  while (glob.startsWith('./')) glob = glob.slice(2)
  while (glob.startsWith('**/')) glob = glob.slice(3)
  if (/^\*+$/.test(glob) || glob === '**/*') return { args: [] }
  const under = EVERY_FILE_UNDER.exec(glob)
  const subdir = under?.[1]?.slice(0, -1)
  // A directory searched by name escapes the VCS excludes, so `.git/**` stays a glob they override.
  const vcs = subdir?.split('/').some((segment) => (VCS_EXCLUDES as readonly string[]).includes(segment))
  if (subdir !== undefined && vcs !== true) return { args: [], subdir }
  // rg's --type-add splits on ':' and has an `include:` directive, so a glob with ':' stays a --glob.
  if (!glob.includes('/') && !glob.includes(':')) return { args: [`--type-add=dshinclude:${glob}`, '--type=dshinclude'] }
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

/** Fails the search for an exit status that is neither matches (0), none (1) nor partial (2). */
export function assertGrepRan(run: BashRunResult, target: string): void {
  if (run.exitCode === 0 || run.exitCode === 1 || run.exitCode === 2) return
  if (run.exitCode === EXIT_TARGET_UNUSABLE) {
    throw new SearchError('SEARCH_FAILED', `grep cannot search ${target}: the directory cannot be entered. ${stderrExcerpt(run)}`)
  }
  throw new SearchError('SEARCH_FAILED', `grep failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
}

/**
 * What an exit 2 means (amendment 3): a rejected pattern, a search root rg could not read (a failure),
 * or some unreadable paths under it, whose names are returned while every readable match is kept.
 */
export function partialSearchErrors(run: BashRunResult, output: RgOutput, target: string, include: string | undefined): string[] {
  if (run.exitCode !== 2) return []
  if (isPatternError(run)) {
    throw new SearchError('SEARCH_INVALID_PATTERN', `grep pattern or include rejected by rg: ${stderrExcerpt(run)} Fix the pattern (ripgrep regex syntax; one line at a time) and try again.`)
  }
  const errors = rgErrorLines(run)
  const subdir = planInclude(include).subdir
  const roots = [explicitPath(target), '.', ...(subdir === undefined ? [] : [explicitPath(subdir)])]
  const rootFailed = errors.some((line) => roots.some((root) => line.startsWith(`${root}: `)))
  const found = output.matches.length > 0 || output.binaryFiles.length > 0
  if (!found && (rootFailed || errors.length === 0)) {
    throw new SearchError('SEARCH_FAILED', `grep cannot search ${target}: ${stderrExcerpt(run)} Check the path and try again.`)
  }
  return errors
}

/** The notes that follow a page: per-file cuts, the spill, incompleteness, binary files, lossy bytes. */
interface GrepNotes {
  incomplete: readonly string[]
  binary: readonly string[]
  binaryStopped: readonly string[]
  lossy: number
}

function footers(retained: RetainedGrep, spill: SpillOutcome | undefined, { incomplete, binary, binaryStopped, lossy }: GrepNotes): string[] {
  const notes: string[] = []
  if (retained.cutFiles.length > 0) {
    const cuts = retained.cutFiles.map((f) => `${f.path} (${f.shown} of ${f.total})`).join(', ')
    notes.push(`(Per-file cap: these files show only some of their matches: ${cuts}.)`)
  }
  if (spill !== undefined) notes.push(`(${spillSentence(spill, 'Full grep result')})`)
  if (incomplete.length > 0) notes.push(incompleteNote(incomplete))
  if (binary.length > 0) notes.push(`(Binary file${binary.length === 1 ? '' : 's'} matched, lines not shown: ${binary.join(', ')}.)`)
  if (binaryStopped.length > 0) {
    notes.push(`(rg stopped at binary content in ${binaryStopped.join(', ')}, so matches after it are missing.)`)
  }
  // The seam hands over decoded text, so a literal U+FFFD in a file is counted too; the note says so.
  if (lossy > 0) notes.push(`(${lossy} matched line${lossy === 1 ? '' : 's'} or path${lossy === 1 ? '' : 's'} contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)`)
  return notes
}

/** The model-facing page. */
export function formatGrepPage(retained: RetainedGrep, notes: readonly string[]): string {
  const head =
    retained.total === 0
      ? 'No matches found'
      : `Found ${retained.truncated ? `${retained.kept} of ${retained.total}` : retained.total} match${retained.total === 1 ? '' : 'es'}`
  return [retained.total === 0 ? head : `${head}\n\n${formatGroups(retained.files)}`, ...notes].join('\n\n')
}

/** Runs one grep call end to end. */
export async function executeGrep(ctx: SearchContext, args: GrepArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const target = args.path ?? '.'
  const command = buildGrepCommand(ctx.rg, args.pattern, target, args.include, ctx.config.grepMaxLineBytes)
  const { run, workdir } = await runSearchCommand(ctx, exec, command)
  assertGrepRan(run, target)
  const { base, body } = splitGrepOutput(run.stdout.text, workdir, target)
  const output = parseRgOutput(body)
  const incomplete = partialSearchErrors(run, output, target, args.include)
  const shown = displayFrom(workdir, base)
  const matches = toGrepMatches(output, shown, ctx.config.grepMaxLineBytes)
  const budget = {
    maxMatches: ctx.config.grepMaxMatches,
    maxBytes: ctx.config.inlineMaxBytes,
    maxPerFile: ctx.config.grepMaxMatchesPerFile,
    maxLineBytes: ctx.config.grepMaxLineBytes,
  }
  const retained = retainGrepMatches(matches, budget)
  const notes: GrepNotes = {
    incomplete,
    binary: output.binaryFiles.map(shown),
    binaryStopped: output.binaryStopped.map(shown),
    lossy: matches.filter((m) => m.line.includes('\ufffd') || m.path.includes('\ufffd')).length,
  }
  const complete = { files: groupByFile(matches), kept: matches.length, total: matches.length, truncated: false, cutFiles: [] }
  const spill = retained.truncated
    ? await saveFormattedResult(ctx.spillStore(), exec, `${formatGrepPage(complete, footers(complete, undefined, notes))}\n`, 'grep-results.txt')
    : undefined
  return {
    content: formatGrepPage(retained, footers(retained, spill, notes)),
    value: { matches, total: matches.length, truncated: retained.truncated, incomplete },
  }
}

/**
 * Display paths, previews, and the deterministic order: path, then line (amendment 10). rg prints a
 * file's lines in order but files in any order, so files are sorted and lines only when they must be.
 */
function toGrepMatches(output: RgOutput, shown: (file: string) => string, maxLineBytes: number): GrepMatch[] {
  const displayed = new Map<string, string>()
  const byFile = new Map<string, GrepMatch[]>()
  for (const m of output.matches) {
    let file = displayed.get(m.path)
    if (file === undefined) displayed.set(m.path, (file = shown(m.path)))
    let group = byFile.get(file)
    if (group === undefined) byFile.set(file, (group = []))
    group.push({ path: file, lineNumber: m.lineNumber, ...previewLine(m.text, m.cut, maxLineBytes) })
  }
  // Two raw paths can display the same (lossy decoding); keying by the display merges them.
  return [...byFile.keys()].sort().flatMap((file) => {
    const matches = byFile.get(file)!
    return inLineOrder(matches) ? matches : matches.sort((a, b) => a.lineNumber - b.lineNumber)
  })
}

function inLineOrder(matches: readonly GrepMatch[]): boolean {
  return matches.every((m, i) => i === 0 || matches[i - 1]!.lineNumber <= m.lineNumber)
}

/** The grep tool: read-only and safe to run beside other searches (amendment 14). */
export function createGrepTool(ctx: SearchContext) {
  return defineTool({
    name: 'grep',
    description: GREP_DESCRIPTION,
    parameters: GrepArgs,
    timeoutMs: ctx.config.timeoutMs,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'search file contents regex ripgrep find text',
    execute: (args, exec) => executeGrep(ctx, args, exec),
    presentCall: (args) => ({ card: 'generic', kind: 'search', title: `grep ${args.pattern}`, ...(args.path === undefined ? {} : { detail: args.path }) }),
  })
}
