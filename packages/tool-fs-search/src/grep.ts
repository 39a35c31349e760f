import { defineTool, type BashRunResult, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GrepArgs } from './args.js'
import { SearchError } from './errors.js'
import { parseRgOutput, type RgOutput } from './grep-parse.js'
import { formatGroups, groupByFile, previewLine, retainGrepMatches, type GrepMatch, type RetainedGrep } from './grep-retain.js'
import { GREP_DESCRIPTION } from './prompts.js'
import { displayPath, incompleteNote, isPatternError, rgErrorLines, runSearchCommand, stderrExcerpt, type SearchContext } from './search-core.js'
import { shellCommand } from './shell-quote.js'
import { saveFormattedResult, spillSentence, type SpillOutcome } from './spill.js'
import { VCS_EXCLUDES } from './vcs.js'

/**
 * The rg arguments an `include` glob becomes. A name-only glob becomes a file type: types filter files
 * and never override ignore rules, while a `--glob` that matches a directory (`**`, `*`) re-opens it
 * even when .gitignore hides it (DESIGN amendment 5). Match-everything globs add no filter at all.
 */
export function includeArgs(include: string | undefined): string[] {
  if (include === undefined) return []
  let glob = include
  while (glob.startsWith('./')) glob = glob.slice(2)
  while (glob.startsWith('**/')) glob = glob.slice(3)
  if (/^\*+$/.test(glob)) return []
  // rg's --type-add splits on ':' and has an `include:` directive, so a glob with ':' stays a --glob.
  if (!glob.includes('/') && !glob.includes(':')) return [`--type-add=dshinclude:${glob}`, '--type=dshinclude']
  return [`--glob=${glob}`]
}

/**
 * The grep command: `--null` line output with `--max-columns` (DESIGN's measured format), the pattern
 * after `-e` and the target after `--` so neither can become a flag, `--no-config` so no user config
 * injects flags, and stdin from /dev/null so rg never waits on it (amendment 2).
 */
export function buildGrepCommand(rg: string, pattern: string, target: string, include: string | undefined, maxLineBytes: number): string {
  const argv = [
    rg, '--no-config', '--null', '--line-number', '--with-filename', '--no-heading', '--color=never',
    '--hidden', `--max-columns=${maxLineBytes}`, '--max-columns-preview',
    ...VCS_EXCLUDES.map((dir) => `--glob=!${dir}`),
    ...includeArgs(include),
    '-e', pattern, '--', target,
  ]
  return `${shellCommand(argv)} </dev/null`
}

/** Decides what rg's exit status means; returns the unreadable paths of a partial search. */
export function classifyGrepRun(run: BashRunResult, output: RgOutput, target: string): string[] {
  if (run.exitCode === 0 || run.exitCode === 1) return []
  if (run.exitCode === 2) {
    if (isPatternError(run)) {
      throw new SearchError('SEARCH_INVALID_PATTERN', `grep pattern or include rejected by rg: ${stderrExcerpt(run)} Fix the pattern (ripgrep regex syntax; one line at a time) and try again.`)
    }
    const errors = rgErrorLines(run)
    const rootFailed = errors.some((line) => line.startsWith(`${target}: `))
    if (output.matches.length === 0 && output.binaryFiles.length === 0 && (rootFailed || errors.length === 0)) {
      throw new SearchError('SEARCH_FAILED', `grep cannot search ${target}: ${stderrExcerpt(run)} Check the path and try again.`)
    }
    return errors
  }
  throw new SearchError('SEARCH_FAILED', `grep failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
}

/** The notes that follow a page: per-file cuts, the spill, incompleteness, binary files, lossy bytes. */
function footers(retained: RetainedGrep, spill: SpillOutcome | undefined, incomplete: readonly string[], binary: readonly string[], lossy: number): string[] {
  const notes: string[] = []
  if (retained.cutFiles.length > 0) {
    const cuts = retained.cutFiles.map((f) => `${f.path} (${f.shown} of ${f.total})`).join(', ')
    notes.push(`(Per-file cap: these files show only some of their matches: ${cuts}.)`)
  }
  if (spill !== undefined) notes.push(`(${spillSentence(spill, 'Full grep result')})`)
  if (incomplete.length > 0) notes.push(incompleteNote(incomplete))
  if (binary.length > 0) notes.push(`(Binary file${binary.length === 1 ? '' : 's'} matched, lines not shown: ${binary.join(', ')}.)`)
  if (lossy > 0) notes.push(`(${lossy} matched line${lossy === 1 ? '' : 's'} or path${lossy === 1 ? '' : 's'} contain bytes that are not valid UTF-8, shown as U+FFFD.)`)
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
  const output = parseRgOutput(run.stdout.text)
  const incomplete = classifyGrepRun(run, output, target)
  const matches = toGrepMatches(output, workdir, ctx.config.grepMaxLineBytes)
  const budget = {
    maxMatches: ctx.config.grepMaxMatches,
    maxBytes: ctx.config.inlineMaxBytes,
    maxPerFile: ctx.config.grepMaxMatchesPerFile,
    maxLineBytes: ctx.config.grepMaxLineBytes,
  }
  const retained = retainGrepMatches(matches, budget)
  const binary = output.binaryFiles.map((file) => displayPath(workdir, file))
  const lossy = matches.filter((m) => m.line.includes('\ufffd') || m.path.includes('\ufffd')).length
  const complete = { files: groupByFile(matches), kept: matches.length, total: matches.length, truncated: false, cutFiles: [] }
  const spill = retained.truncated
    ? await saveFormattedResult(ctx.spillStore(), exec, `${formatGrepPage(complete, footers(complete, undefined, incomplete, binary, lossy))}\n`, 'grep-results.txt')
    : undefined
  return {
    content: formatGrepPage(retained, footers(retained, spill, incomplete, binary, lossy)),
    value: { matches: matches.map(({ path: file, lineNumber, line }) => ({ path: file, lineNumber, line })), total: matches.length, truncated: retained.truncated, incomplete },
  }
}

/** Display paths, previews, and the deterministic order: path, then line (amendment 10). */
function toGrepMatches(output: RgOutput, workdir: string, maxLineBytes: number): GrepMatch[] {
  const shown = new Map<string, string>()
  const matches = output.matches.map((m) => {
    let file = shown.get(m.path)
    if (file === undefined) shown.set(m.path, (file = displayPath(workdir, m.path)))
    return { path: file, lineNumber: m.lineNumber, ...previewLine(m.text, m.cut, maxLineBytes) }
  })
  return matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.lineNumber - b.lineNumber))
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
