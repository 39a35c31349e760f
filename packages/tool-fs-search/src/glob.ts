import path from 'node:path'
import { defineTool, ItemRetainer, type BashRunResult, type ItemRetention, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GlobArgs } from './args.js'
import { SearchError } from './errors.js'
import { planGlob } from './glob-pattern.js'
import { GLOB_DESCRIPTION } from './prompts.js'
import { countWithinBytes, displayFrom, explicitPath, incompleteNote, isPatternError, rgErrorLines, runSearchCommand, stderrExcerpt, type SearchContext } from './search-core.js'
import { shellCommand } from './shell-quote.js'
import { saveFormattedResult, spillSentence, type SpillOutcome } from './spill.js'
import { VCS_EXCLUDES } from './vcs.js'

// Exit statuses the glob script adds to rg's own 0 (files), 1 (none) and 2 (partial or error).
const EXIT_ROOT_UNUSABLE = 3
const EXIT_STAT_UNAVAILABLE = 125

/**
 * The glob script. rg lists unsorted (its `--sortr=modified` is single-threaded, DESIGN amendment 8)
 * from inside the root, so path-shaped globs work (amendment 6); the executor adds each file's mtime,
 * so a remote or sandboxed backend reads its own files: GNU find reads the NUL-separated names in one
 * process (findutils >= 4.9), else `xargs stat` does in batches. NUL separates records, so names with
 * newlines survive (amendment 7). The script exits with rg's status.
 */
export function buildGlobCommand(rg: string, root: string, glob: string): string {
  const list = shellCommand([
    rg, '--files', '--null', '--no-config', '--no-ignore', '--hidden', '--color=never',
    // The model's glob first: later globs win, so the VCS excludes cannot be overridden.
    `--glob=${glob}`,
    ...VCS_EXCLUDES.map((dir) => `--glob=!${dir}`),
  ])
  return [
    `cd -- ${shellCommand([explicitPath(root)])} || exit ${EXIT_ROOT_UNUSABLE}`,
    'if find -files0-from /dev/null -maxdepth 0 >/dev/null 2>&1; then',
    `  ${list} </dev/null | find -files0-from - -maxdepth 0 -printf '%T@\\t%p\\0'`,
    'else',
    `  ${list} </dev/null | xargs -0 -r stat --printf='%.9Y\\t%n\\0' --`,
    'fi',
    `s=("\${PIPESTATUS[@]}"); if [ "\${s[1]}" -ge 126 ]; then exit ${EXIT_STAT_UNAVAILABLE}; fi; exit "\${s[0]}"`,
  ].join('\n')
}

/** One listed file with its modification time as whole seconds and nanoseconds. */
export interface ListedFile {
  name: string
  seconds: number
  nanos: number
}

/** Parses `mtime TAB name NUL` records; a record that does not parse fails the search. */
export function parseGlobListing(stdout: string): ListedFile[] {
  const files: ListedFile[] = []
  for (let pos = 0; pos < stdout.length; ) {
    const end = stdout.indexOf('\0', pos)
    const tab = stdout.indexOf('\t', pos)
    const time = end === -1 || tab === -1 || tab + 1 >= end ? null : MTIME.exec(stdout.slice(pos, tab))
    if (time === null) {
      throw new SearchError('SEARCH_FAILED', `glob could not parse the file listing near ${JSON.stringify(stdout.slice(pos, pos + 80))}`)
    }
    files.push({ name: stdout.slice(tab + 1, end), seconds: Number(time[1]), nanos: Number((time[2] ?? '').padEnd(9, '0')) })
    pos = end + 1
  }
  return files
}

// find prints ten fractional digits, stat nine; nanoseconds are the first nine.
const MTIME = /^(\d+)(?:\.(\d{1,9})\d?)?$/

/** Newest modified first; ties by name, so identical calls give identical pages (amendment 10). */
export function sortNewestFirst(files: ListedFile[]): ListedFile[] {
  return files.sort((a, b) => b.seconds - a.seconds || b.nanos - a.nanos || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

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
      if (isPatternError(run)) {
        throw new SearchError('SEARCH_INVALID_PATTERN', `glob pattern rejected by rg: ${stderrExcerpt(run)} Fix the pattern and try again.`)
      }
      const errors = rgErrorLines(run)
      if (errors.length > 0) return errors
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
export function formatGlobPage(retained: ItemRetention<string>, spill: SpillOutcome | undefined, incomplete: readonly string[]): string {
  const parts = [retained.total === 0 ? 'No files found' : retained.items.join('\n')]
  if (spill !== undefined) {
    parts.push(`(Showing ${retained.kept} of ${retained.total} paths, newest first. ${spillSentence(spill, 'Full sorted result')})`)
  }
  if (incomplete.length > 0) parts.push(incompleteNote(incomplete))
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
    ? await saveFormattedResult(ctx.spillStore(), exec, `${paths.join('\n')}\n`, 'glob-results.txt')
    : undefined
  return {
    content: formatGlobPage(retained, spill, incomplete),
    value: { paths, total: paths.length, truncated: retained.truncated, incomplete },
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
