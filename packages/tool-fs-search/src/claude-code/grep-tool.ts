// Claude Code's Grep on the dsh engine: one rg run through the seam, parsed as it arrives, then paged by offset and head_limit.
import path from 'node:path'
import { defineTool, type BashRunResult, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { SearchError } from '../errors.js'
import { GlobListingParser } from '../engine/glob/listing.js'
import { sortNewestFirst } from '../engine/glob/order.js'
import { showPaths } from '../engine/glob/paths.js'
import { timedOutGlobGaps, type GlobGaps } from '../engine/glob/classify.js'
import { showMatches, type ShownMatches } from '../engine/grep/matches.js'
import { RgOutputParser } from '../engine/grep/parse.js'
import { showWindows } from '../engine/grep/windows.js'
import { allowedPlan, searchExclusions } from '../engine/access.js'
import { linkDisplay, linksNote, planLinks, withoutSkippedLinks } from '../engine/links.js'
import { TIMEOUT_BACKSTOP_MS, type ListingContext } from '../engine/context.js'
import { displayFrom, explicitPath, nameDisplay } from '../engine/display-path.js'
import { listGaps } from '../engine/exit-2.js'
import { incompleteNote, nameSome } from '../engine/footers.js'
import { runSearchCommand } from '../engine/run.js'
import { rgCommand } from '../engine/rg-command.js'
import { saveFormattedResult, type SpillOutcome } from '../engine/spill.js'
import { incompleteEntries, timeoutNote, type TimedOut } from '../engine/timeout.js'
import { ClaudeGrepArgs, contextLines, type OutputMode } from './args.js'
import { assertClaudeGrepRan, claudeGrepGaps, unknownType, type ClaudeGrepCall } from './classify.js'
import { buildClaudeGrepCommand } from './command.js'
import { contentEntries, countContext, pageRecords, type RowStyle } from './content.js'
import { CountParser } from './counts.js'
import { countEntries, fileEntries, showCounts } from './files.js'
import { hasMore, pageRequest, pagingNote, pastEndNote, takePage, textBlocks, type Page } from './paging.js'
import { GREP_TOOL_DESCRIPTION } from './prompts.js'
import { ScriptHead } from './script-head.js'
import { planGlobList } from './globs.js'
import { closeTypeNames, typeNames } from './types.js'

/** What Grep returns as its value: the page's numbers, for a host (never sent to a model). */
export interface ClaudeGrepValue {
  mode: OutputMode
  /** Entries in the complete result: lines (content), files (files_with_matches, count). */
  total: number
  offset: number
  /** Entries the page shows. */
  shown: number
  /** Matched lines (content, count) or matching files (files_with_matches). */
  matches: number
  /** True when entries remain after the page (the complete result was spilled). */
  truncated: boolean
  incomplete: string[]
}

/** What one mode made of rg's output: its entries from any start, their count, the heading, the page's unit. */
interface ModeResult {
  entries: (start: number) => Iterable<string>
  total: number
  matches: number
  heading: string
  /** What the result holds, in a note's words: "12 matching lines in 3 files", "4 files", "no matches". */
  tally: string
  unit: string
  /** Read once the page is taken: a window can change what they count. */
  readonly notes: string[]
  found: boolean
  /** Content mode's records, and the directory rg's paths are relative to: what windows are fetched for. */
  content?: { matches: ShownMatches; base: string }
}

/**
 * Runs one Grep call: plans the globs, runs the script through the seam while the mode's parser reads
 * rg's output, classifies the exit, then pages the complete result from `offset` within `head_limit`
 * and the byte budget, and spills the complete result when entries remain after the page.
 */
export async function executeClaudeGrep(ctx: ListingContext, args: ClaudeGrepArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const { config } = ctx
  const mode = args.output_mode ?? 'files_with_matches'
  const target = args.path ?? '.'
  const context = mode === 'content' ? contextLines(args) : { before: 0, after: 0 }
  const excludes = await searchExclusions(ctx.access(), target, exec)
  const plan = await allowedPlan(ctx.access(), target, planGlobList(args.glob, args.type !== undefined), exec)
  const links = await planLinks(ctx, exec, target, ctx.fs?.(), ctx.access())
  const command = buildClaudeGrepCommand({
    rg: ctx.rg,
    lister: ctx.lister,
    mode,
    pattern: args.pattern,
    target,
    plan,
    excludes,
    links,
    maxLineBytes: config.grepMaxLineBytes,
    context,
    caseInsensitive: args['-i'] === true,
    multiline: args.multiline === true,
    type: args.type,
  })
  const reader = modeReader(mode, config, target, { numbered: args['-n'] !== false, gaps: context.before + context.after > 0 })
  const searched = await runSearchCommand(ctx, exec, {
    command,
    narrow: 'pattern, path, glob or type',
    stdoutSink: (chunk) => reader.push(chunk),
    onTimeout: 'partial',
  })
  const { workdir, timedOut } = searched
  const run = withoutSkippedLinks(searched.run, links)
  const call: ClaudeGrepCall = { workdir, target, glob: args.glob, type: args.type, plan, lister: ctx.lister }
  const missingType = unknownType(run)
  if (missingType !== undefined) throw await unknownTypeError(ctx, exec, missingType)
  // A run stopped at its time limit did not exit: what rg printed is the result (docs/design.md#a-timeout-returns-what-was-found).
  if (timedOut === undefined) assertClaudeGrepRan(run, call)
  const mode_ = reader.finish(workdir, timedOut)
  const gaps = timedOut === undefined ? claudeGrepGaps(run, mode_.found, call) : timedOutGlobGaps(run)
  const request = pageRequest(args)
  let page = takePage(mode_.entries(request.offset), mode_.total, request, config.inlineMaxBytes)
  // After a timeout the call's time is spent: cut lines keep their heads.
  if (mode_.content !== undefined && timedOut === undefined) {
    // The page's long lines show their first match; the page is taken again, since its rows changed.
    const { matches, base } = mode_.content
    const search = {
      rg: ctx.rg,
      pattern: args.pattern,
      patternFlags: [
        ...(args['-i'] === true ? ['--ignore-case'] : []),
        ...(args.multiline === true ? ['--multiline', '--multiline-dotall'] : []),
      ],
      multiline: args.multiline === true,
      base,
      maxLineBytes: config.grepMaxLineBytes,
    }
    if (await showWindows(ctx, exec, matches, pageRecords(matches, page.offset, page.kept), search)) {
      page = takePage(mode_.entries(request.offset), mode_.total, request, config.inlineMaxBytes)
    }
  }
  const spill = hasMore(page)
    ? await saveFormattedResult(
        ctx.spillStore(),
        exec,
        () =>
          textBlocks([
            mode_.heading,
            '\n\n',
            ...mode_.entries(0),
            '\n',
            ...(timedOut === undefined ? [] : ['\n', timeoutNote(timedOut, mode_.tally), '\n']),
          ]),
        'grep-results.txt',
      )
    : undefined
  return {
    content: formatPage(mode_, page, spill, gaps, run, timedOut, linksNote(links, linkDisplay(target))),
    value: {
      mode,
      total: mode_.total,
      offset: page.offset,
      shown: page.kept,
      matches: mode_.matches,
      truncated: hasMore(page),
      incomplete: incompleteEntries(timedOut, [...listGaps(gaps.rg), ...gaps.unstatted]),
    } satisfies ClaudeGrepValue,
    ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
  }
}

/** The page: its heading, its entries (or why there are none), then the timeout, paging and incompleteness footers. */
function formatPage(
  result: ModeResult,
  page: Page,
  spill: SpillOutcome | undefined,
  gaps: GlobGaps,
  run: BashRunResult,
  timedOut: TimedOut | undefined,
  links: string | undefined,
): string {
  // A search stopped at its time limit has not looked everywhere: nothing found is not "none".
  const parts = [timedOut !== undefined && result.total === 0 ? `${result.heading} so far` : result.heading]
  if (result.total > 0) parts.push(page.offset >= result.total ? pastEndNote(page, result.unit) : page.text)
  if (timedOut !== undefined) parts.push(timeoutNote(timedOut, result.tally))
  const paging = page.offset < result.total ? pagingNote(page, result.unit, spill && claudeNames(spill)) : undefined
  if (paging !== undefined) parts.push(paging)
  const incomplete = incompleteNote(gaps.rg, run.stderr.truncated)
  if (incomplete !== undefined) parts.push(incomplete)
  if (gaps.unstatted.length > 0 || gaps.helperFailed) {
    parts.push(
      `(Listing incomplete: the modification time of some files could not be read, so they are not shown: ${nameSome(gaps.unstatted, '; ')}.)`,
    )
  }
  if (links !== undefined) parts.push(links)
  parts.push(...result.notes)
  return parts.join('\n\n')
}

/**
 * A mode's parser: it takes the script's stdout, then makes the mode's result once rg has finished, or
 * from what arrived when the executor stopped it (`timedOut`), a last record still arriving dropped.
 */
interface ModeReader {
  push: (chunk: Uint8Array) => void
  finish: (workdir: string, timedOut: TimedOut | undefined) => ModeResult
}

/** The mode's parser behind the script head, and how it turns into entries once rg has finished. */
function modeReader(mode: OutputMode, config: ListingContext['config'], target: string, style: RowStyle): ModeReader {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
  switch (mode) {
    case 'files_with_matches': {
      const parser = new GlobListingParser(config.rawOutputMaxBytes)
      const head = new ScriptHead((chunk) => parser.push(chunk))
      return {
        push: (chunk) => head.push(chunk),
        finish: (workdir, timedOut) => {
          const base = baseOf(head, workdir, target, timedOut)
          const listing = timedOut === undefined ? parser.finish() : parser.finishStopped()
          const shown = showPaths(listing, sortNewestFirst(listing), nameDisplay(workdir, base))
          const tally = plural(shown.count, 'file', 'files')
          return {
            entries: (start) => fileEntries(shown, start),
            total: shown.count,
            matches: shown.count,
            heading: shown.count === 0 ? 'No files found' : `Found ${tally}, newest modified first`,
            tally: shown.count === 0 ? 'no files' : tally,
            unit: 'files',
            notes: lossyNote(shown.lossy, 'path', 'paths'),
            found: shown.count > 0,
          }
        },
      }
    }
    case 'count': {
      const parser = new CountParser()
      const head = new ScriptHead((chunk) => parser.push(chunk))
      return {
        push: (chunk) => head.push(chunk),
        finish: (workdir, timedOut) => {
          const base = baseOf(head, workdir, target, timedOut)
          const counts = showCounts(timedOut === undefined ? parser.finish() : parser.finishStopped(), displayFrom(workdir, base))
          const matches = counts.reduce((sum, file) => sum + file.count, 0)
          const tally = `${plural(matches, 'matching line', 'matching lines')} in ${plural(counts.length, 'file', 'files')}`
          return {
            entries: (start) => countEntries(counts, start),
            total: counts.length,
            matches,
            heading: counts.length === 0 ? 'No matches found' : `Found ${tally}`,
            tally: counts.length === 0 ? 'no matches' : tally,
            unit: 'files',
            notes: lossyNote(counts.filter((file) => file.replaced).length, 'path', 'paths'),
            found: counts.length > 0,
          }
        },
      }
    }
    case 'content': {
      const parser = new RgOutputParser(config.grepMaxLineBytes, config.rawOutputMaxBytes, {
        fileTarget: explicitPath(target),
        context: style.gaps,
      })
      // The parser reads the head itself.
      return {
        push: (chunk) => parser.push(chunk),
        finish: (workdir, timedOut) => {
          const output = timedOut === undefined ? parser.finish() : parser.finishStopped()
          const base = output.searched === 'directory' ? path.resolve(workdir, target) : workdir
          const shownFrom = displayFrom(workdir, base)
          const matches = showMatches(output, shownFrom)
          const { matchLines, contextLines } = countContext(matches)
          const files = plural(matches.files.length, 'file', 'files')
          const withContext = contextLines > 0 ? `, with ${plural(contextLines, 'context line', 'context lines')}` : ''
          const tally = `${plural(matchLines, 'matching line', 'matching lines')} in ${files}`
          const binary = output.binaryFiles.map(shownFrom)
          const stopped = output.binaryStopped.map(shownFrom)
          return {
            entries: (start) => contentEntries(matches, start, style),
            total: matches.total,
            matches: matchLines,
            heading:
              matches.total === 0 ? (binary.length > 0 ? 'No matching lines to show' : 'No matches found') : `Found ${tally}${withContext}`,
            tally: matchLines === 0 ? 'no matches' : tally,
            unit: 'lines',
            get notes() {
              return [
                ...(binary.length > 0 ? [`(Binary file matched, lines not shown: ${binary.join(', ')}.)`] : []),
                ...(stopped.length > 0
                  ? [`(rg stopped at binary content in ${stopped.join(', ')}, so matches after it are missing.)`]
                  : []),
                ...lossyNote(matches.lossy, 'line or path', 'lines or paths'),
                ...(matches.escaped > 0
                  ? [
                      `(${plural(matches.escaped, 'line contains', 'lines contain')} control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)`,
                    ]
                  : []),
              ]
            },
            found: output.records.count > 0 || output.binaryFiles.length > 0,
            content: { matches, base },
          }
        },
      }
    }
  }
}

/** The store's hint, with the tools named as this profile names them. */
function claudeNames(spill: SpillOutcome): SpillOutcome {
  if (!spill.saved) return spill
  return { ...spill, retrievalHint: spill.retrievalHint.replace(/\bread\b/g, 'Read').replace(/\bgrep\b/g, 'Grep') }
}

/**
 * What the paths rg printed are relative to: the directory searched from inside, or the workdir for a
 * file (and for a run stopped before the script's head: it printed no paths).
 */
function baseOf(head: ScriptHead, workdir: string, target: string, timedOut: TimedOut | undefined): string {
  const searched = timedOut === undefined ? head.searched() : head.searchedSoFar()
  return searched === 'directory' ? path.resolve(workdir, target) : workdir
}

/** The footer for results whose lines or paths held bytes that were not valid UTF-8. */
function lossyNote(count: number, one: string, many: string): string[] {
  if (count === 0) return []
  return [`(${count} ${count === 1 ? `${one} contains` : `${many} contain`} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`]
}

/** SEARCH_INVALID_PATTERN for a type rg does not know, naming the close ones from the rg the call ran. */
async function unknownTypeError(ctx: ListingContext, exec: ToolExecContext, type: string): Promise<SearchError> {
  const chunks: Uint8Array[] = []
  await runSearchCommand(ctx, exec, {
    command: rgCommand({ rg: ctx.rg, flags: ['--type-list'] }),
    narrow: 'type',
    stdoutSink: (chunk) => chunks.push(Buffer.from(chunk)),
  })
  const close = closeTypeNames(type, typeNames(Buffer.concat(chunks).toString('utf8')))
  const hint = close.length > 0 ? ` Close names: ${close.join(', ')}.` : ''
  return new SearchError(
    'SEARCH_INVALID_PATTERN',
    `Grep type ${JSON.stringify(type)} is not one of rg's file types.${hint} Use glob for other files, e.g. "*.ext".`,
  )
}

/** Claude Code's Grep: read-only and safe to run beside other searches. */
export function createClaudeGrepTool(ctx: ListingContext) {
  return defineTool({
    name: 'Grep',
    description: GREP_TOOL_DESCRIPTION,
    parameters: ClaudeGrepArgs,
    timeoutMs: ctx.config.timeoutMs + TIMEOUT_BACKSTOP_MS,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'search file contents regex ripgrep find text count files',
    execute: (args, exec) => executeClaudeGrep(ctx, args, exec),
    presentCall: (args) => ({
      card: 'generic',
      kind: 'search',
      title: `Grep ${args.pattern}`,
      ...(args.path === undefined ? {} : { detail: args.path }),
    }),
  })
}
