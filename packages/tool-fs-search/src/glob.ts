// The glob tool (seed 000): run the listing through the bash seam, order it, retain once, spill.
import path from 'node:path'
import { defineTool, ItemRetainer, type BashRunResult, type ItemRetention, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GlobArgs } from './args.js'
import { displayFrom } from './display-path.js'
import { SearchError } from './errors.js'
import { buildGlobCommand, EXIT_ROOT_UNUSABLE, EXIT_STAT_UNAVAILABLE, parseGlobListing, sortNewestFirst } from './glob-command.js'
import { planGlob } from './glob-pattern.js'
import { GLOB_DESCRIPTION } from './prompts.js'
import { countWithinBytes, incompleteNote, isPatternError, rgErrorLines, runSearchCommand, stderrExcerpt, type SearchContext } from './search-core.js'
import { saveFormattedResult, spillSentence, type SpillOutcome } from './spill.js'

/** Keeps the head of the newest-first list within the item cap and the byte budget. */
export function retainGlobPaths(paths: readonly string[], maxResults: number, maxBytes: number): ItemRetention<string> {
  const fits = countWithinBytes(paths, maxBytes, (shown) => Buffer.byteLength(shown) + 1)
  const retainer = new ItemRetainer<string>({ kind: 'head', maxItems: Math.min(maxResults, fits) })
  for (const shown of paths) retainer.push(shown)
  return retainer.result()
}

/** The errors an exit status means, or the unreadable paths of a partial listing. */
export function classifyGlobRun(run: BashRunResult, root: string): string[] {
  switch (run.exitCode) {
    case 0:
    case 1:
      return []
    case 2: {
      const listed = run.stdout.text !== ''
      if (!listed && isPatternError(run)) {
        throw new SearchError('SEARCH_INVALID_PATTERN', `glob pattern rejected by rg: ${stderrExcerpt(run)} Fix the pattern and try again.`)
      }
      const errors = rgErrorLines(run)
      // The root itself unreadable is a failure, not an empty listing (amendment 3).
      const rootFailed = errors.some((line) => line.startsWith('./: ') || line.startsWith('.: '))
      if (errors.length > 0 && (listed || !rootFailed)) return errors
      if (rootFailed) throw new SearchError('SEARCH_FAILED', `glob cannot read ${root}: ${stderrExcerpt(run)}`)
      break
    }
    case EXIT_ROOT_UNUSABLE:
      throw new SearchError('SEARCH_FAILED', `glob cannot search ${root}: it does not exist or is not a directory. ${stderrExcerpt(run)}`)
    case EXIT_STAT_UNAVAILABLE:
      throw new SearchError('SEARCH_FAILED', 'glob needs GNU find (>= 4.9), or xargs and GNU stat, in the executor environment to order files by modification time.')
  }
  throw new SearchError('SEARCH_FAILED', `glob failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
}

/** The model-facing text: the page, then the cap and incompleteness footers. */
export function formatGlobPage(retained: ItemRetention<string>, spill: SpillOutcome | undefined, incomplete: readonly string[], stderrCut: boolean): string {
  const parts = [retained.total === 0 ? 'No files found' : retained.items.join('\n')]
  if (spill !== undefined) {
    parts.push(`(Showing ${retained.kept} of ${retained.total} paths, newest first. ${spillSentence(spill, 'Full sorted result')})`)
  }
  if (incomplete.length > 0) parts.push(incompleteNote(incomplete, stderrCut))
  return parts.join('\n\n')
}

/** Runs one glob call end to end. */
export async function executeGlob(ctx: SearchContext, args: GlobArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const plan = planGlob(args.pattern, args.path)
  const { run, workdir } = await runSearchCommand(ctx, exec, buildGlobCommand(ctx.rg, plan.root, plan.glob))
  const incomplete = classifyGlobRun(run, plan.root)
  const shown = displayFrom(workdir, path.resolve(workdir, plan.root))
  const paths = sortNewestFirst(parseGlobListing(run.stdout.text)).map((file) => shown(file.name))
  const retained = retainGlobPaths(paths, ctx.config.globMaxResults, ctx.config.inlineMaxBytes)
  const spill = retained.truncated
    ? await saveFormattedResult(ctx.spillStore(), exec, () => `${paths.join('\n')}\n`, 'glob-results.txt')
    : undefined
  return {
    content: formatGlobPage(retained, spill, incomplete, run.stderr.truncated),
    value: { paths, total: paths.length, truncated: retained.truncated, incomplete },
    ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
  }
}

/** The glob tool: read-only and safe to run beside other searches (amendment 14). */
export function createGlobTool(ctx: SearchContext) {
  return defineTool({
    name: 'glob',
    description: GLOB_DESCRIPTION,
    parameters: GlobArgs,
    timeoutMs: ctx.config.timeoutMs,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'find files by name pattern list directory',
    execute: (args, exec) => executeGlob(ctx, args, exec),
    presentCall: (args) => ({ card: 'generic', kind: 'search', title: `glob ${args.pattern}`, ...(args.path === undefined ? {} : { detail: args.path }) }),
  })
}
