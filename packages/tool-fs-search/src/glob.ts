// The glob tool (seed 000): run the listing through the bash seam, order it, retain once, spill.
import path from 'node:path'
import { defineTool, ItemRetainer, type BashRunResult, type ItemRetention, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { searchExclusions } from './access.js'
import { GlobArgs } from './args.js'
import { displayFrom, displayPath } from './display-path.js'
import { SearchError } from './errors.js'
import { buildGlobCommand, parseGlobListing, sortNewestFirst, type MtimeLister } from './glob-command.js'
import { planGlob } from './glob-pattern.js'
import { GLOB_DESCRIPTION } from './prompts.js'
import { EXIT_MTIME_PARTIAL, EXIT_MTIME_UNAVAILABLE, EXIT_NOT_DIRECTORY } from './script-exit.js'
import {
  countWithinBytes,
  incompleteNote,
  isPatternError,
  listGaps,
  nameSome,
  rgErrorLines,
  runSearchCommand,
  stderrExcerpt,
  targetFailure,
  TIMEOUT_BACKSTOP_MS,
  type SearchContext,
  type SearchGaps,
} from './search-core.js'
import { saveFormattedResult, spillSentence, type SpillOutcome } from './spill.js'

/** What glob needs at run time: the shared context and the mtime helper the load-time probe chose. */
export interface GlobContext extends SearchContext {
  lister: MtimeLister
}

/** What a listing left out: paths rg could not read, and files rg listed whose mtime could not be read. */
export interface GlobGaps {
  rg: SearchGaps
  /** The mtime helper's messages, one per file it could not stat (its program path stripped). */
  unstatted: string[]
  /** The helper failed: its messages may be missing, or name nothing. */
  helperFailed: boolean
}

/** Keeps the head of the newest-first list within the item cap and the byte budget. */
export function retainGlobPaths(paths: readonly string[], maxResults: number, maxBytes: number): ItemRetention<string> {
  const fits = countWithinBytes(paths, maxBytes, (shown) => Buffer.byteLength(shown) + 1)
  const retainer = new ItemRetainer<string>({ kind: 'head', maxItems: Math.min(maxResults, fits) })
  for (const shown of paths) retainer.push(shown)
  return retainer.result()
}

/** The errors an exit status means, or what a partial listing left out. */
export function classifyGlobRun(run: BashRunResult, workdir: string, root: string, lister: MtimeLister): GlobGaps {
  const complete = { rg: { paths: [] }, unstatted: [], helperFailed: false }
  switch (run.exitCode) {
    case 0:
    case 1:
      return complete
    case 2: {
      const listed = run.stdout.text !== ''
      if (!listed && isPatternError(run)) {
        throw new SearchError('SEARCH_INVALID_PATTERN', `glob pattern rejected by rg: ${stderrExcerpt(run)} Fix the pattern and try again.`)
      }
      const errors = rgErrorLines(run)
      // The root itself unreadable is a failure, not an empty listing (amendment 3).
      const rootFailed = errors.some((line) => line.startsWith('./: ') || line.startsWith('.: '))
      if (errors.length > 0 && (listed || !rootFailed)) return { ...complete, rg: { paths: errors } }
      if (rootFailed) throw new SearchError('SEARCH_FAILED', `glob cannot read ${displayPath(workdir, root)}: ${stderrExcerpt(run)}`)
      // Files listed, yet an error rg tied to no path: incomplete all the same.
      if (listed) return { ...complete, rg: { paths: [], unexplained: stderrExcerpt(run) } }
      break
    }
    case EXIT_MTIME_PARTIAL:
      return { rg: { paths: rgErrorLines(run) }, unstatted: helperLines(run, lister), helperFailed: true }
    case EXIT_NOT_DIRECTORY:
      throw new SearchError('SEARCH_FAILED', `glob searches directories, but ${displayPath(workdir, root)} is a file. Pass its directory as path, or grep the file.`)
    case EXIT_MTIME_UNAVAILABLE:
      throw new SearchError('SEARCH_FAILED', 'glob needs GNU find (>= 4.9), or xargs and GNU stat, in the executor environment to order files by modification time.')
  }
  throw targetFailure('glob', run, workdir, root) ?? new SearchError('SEARCH_FAILED', `glob failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
}

/** The mtime helper's lines on stderr, without its program path: each names a file it could not stat. */
function helperLines(run: BashRunResult, lister: MtimeLister): string[] {
  const programs = (lister.helper === 'find' ? [lister.find] : [lister.xargs, lister.stat]).map((program) => `${program}: `)
  return run.stderr.text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('rg: '))
    .map((line) => programs.reduce((rest, prefix) => (rest.startsWith(prefix) ? rest.slice(prefix.length) : rest), line))
}

/** The footer for files rg listed that the mtime helper could not stat: named, never silently dropped. */
function unstattedNote(gaps: GlobGaps, stderrCut: boolean): string | undefined {
  if (!gaps.helperFailed) return undefined
  const lines = gaps.unstatted
  if (lines.length === 0) return '(Listing incomplete: the modification-time helper failed without a message, so files rg listed may be missing.)'
  const one = lines.length === 1
  const count = `${stderrCut ? 'at least ' : ''}${lines.length} file${one ? '' : 's'}`
  return `(Listing incomplete: ${count} rg listed could not be examined for ${one ? 'its' : 'their'} modification time, so ${one ? 'it is' : 'they are'} not shown: ${nameSome(lines, '; ')}.)`
}

/** What the page must say besides its paths. */
export interface GlobNotes {
  gaps: GlobGaps
  /** The stderr was cut, so the gaps may be missing some names. */
  stderrCut: boolean
  /** Listed paths holding U+FFFD. */
  lossy: number
}

/** The model-facing text: the page, then the cap, incompleteness and replaced-bytes footers. */
export function formatGlobPage(retained: ItemRetention<string>, spill: SpillOutcome | undefined, { gaps, stderrCut, lossy }: GlobNotes): string {
  const empty = gaps.helperFailed ? 'No files to show' : 'No files found'
  const parts = [retained.total === 0 ? empty : retained.items.join('\n')]
  if (spill !== undefined) {
    parts.push(`(Showing ${retained.kept} of ${retained.total} paths, newest first. ${spillSentence(spill, 'Full sorted result')})`)
  }
  for (const note of [incompleteNote(gaps.rg, stderrCut), unstattedNote(gaps, stderrCut)]) if (note !== undefined) parts.push(note)
  // The seam decodes names lossily, so a name that is not UTF-8 shows U+FFFD (as grep notes too).
  if (lossy > 0) parts.push(`(${lossy} path${lossy === 1 ? ' contains' : 's contain'} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`)
  return parts.join('\n\n')
}

/** Runs one glob call end to end. */
export async function executeGlob(ctx: GlobContext, args: GlobArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const plan = planGlob(args.pattern, args.path)
  const excludes = await searchExclusions(ctx.access(), plan.root, exec)
  const { run, workdir } = await runSearchCommand(ctx, exec, buildGlobCommand(ctx.rg, ctx.lister, plan.root, plan.glob, excludes))
  const gaps = classifyGlobRun(run, workdir, plan.root, ctx.lister)
  const shown = displayFrom(workdir, path.resolve(workdir, plan.root))
  const paths = sortNewestFirst(parseGlobListing(run.stdout.text)).map((file) => shown(file.name))
  const retained = retainGlobPaths(paths, ctx.config.globMaxResults, ctx.config.inlineMaxBytes)
  const lossy = paths.filter((shownPath) => shownPath.includes('\ufffd')).length
  const spill = retained.truncated
    ? await saveFormattedResult(ctx.spillStore(), exec, () => `${paths.join('\n')}\n`, 'glob-results.txt')
    : undefined
  return {
    content: formatGlobPage(retained, spill, { gaps, stderrCut: run.stderr.truncated, lossy }),
    value: { paths, total: paths.length, truncated: retained.truncated, incomplete: [...listGaps(gaps.rg), ...gaps.unstatted] },
    ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
  }
}

/** The glob tool: read-only and safe to run beside other searches (amendment 14). */
export function createGlobTool(ctx: GlobContext) {
  return defineTool({
    name: 'glob',
    description: GLOB_DESCRIPTION,
    parameters: GlobArgs,
    timeoutMs: ctx.config.timeoutMs + TIMEOUT_BACKSTOP_MS,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'find files by name pattern list directory',
    execute: (args, exec) => executeGlob(ctx, args, exec),
    presentCall: (args) => ({ card: 'generic', kind: 'search', title: `glob ${args.pattern}`, ...(args.path === undefined ? {} : { detail: args.path }) }),
  })
}
