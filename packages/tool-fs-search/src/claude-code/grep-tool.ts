// Claude Code's Grep on the dsh engine: one rg run through the seam, parsed as it arrives, then paged by offset and head_limit.
import path from 'node:path'
import { defineTool, type BashRunResult, type SearchIndexUse, type SpillScratch, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { displayFrom } from '../engine/display-path.js'
import { GlobRuns } from '../engine/glob/runs.js'
import { GrepPieces } from '../engine/grep/pieces.js'
import { CountRuns } from './count-runs.js'
import type { Searched } from './script-head.js'
import { SearchError } from '../errors.js'
import { timedOutGlobGaps, type GlobGaps } from '../engine/glob/classify.js'
import { showWindows } from '../engine/grep/windows.js'
import { allowedPlan, searchExclusions } from '../engine/access.js'
import { linkDisplay, linksNote, planLinks, withoutSkippedLinks } from '../engine/links.js'
import { TIMEOUT_BACKSTOP_MS, type ListingContext } from '../engine/context.js'
import { listGaps } from '../engine/exit-2.js'
import { incompleteNote, nameSome } from '../engine/footers.js'
import { planIndexedSearch, quietMarkOf } from '../engine/index-plan.js'
import { runSearchCommand } from '../engine/run.js'
import { rgCommand } from '../engine/rg-command.js'
import { saveFormattedResult, type SpillOutcome } from '../engine/spill.js'
import { incompleteEntries, timeoutNote, type TimedOut } from '../engine/timeout.js'
import { ClaudeGrepArgs, type OutputMode } from './args.js'
import { assertClaudeGrepRan, claudeGrepGaps, unknownType, type ClaudeGrepCall } from './classify.js'
import { buildClaudeGrepCommand, claudeGrepFileListCommand } from './command.js'
import { pageRecords } from './content.js'
import { grepModeOf } from './modes.js'
import type { ModeResult, ModeStream } from './modes/mode.js'
import { hasMore, pageRequest, pagingNote, pastEndNote, takePage, spillBlocks, type Page, type SpillPlan } from './paging.js'
import { GREP_TOOL_DESCRIPTION } from './prompts.js'
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
  /** How a content index took part, when one was consulted. */
  index?: SearchIndexUse
}

/**
 * Runs one Grep call: plans the globs, runs the script through the seam while the mode's parser reads
 * rg's output, classifies the exit, then pages the complete result from `offset` within `head_limit`
 * and the byte budget, and spills the complete result when entries remain after the page.
 */
export async function executeClaudeGrep(ctx: ListingContext, args: ClaudeGrepArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const { config } = ctx
  const mode = args.output_mode ?? 'files_with_matches'
  const grepMode = grepModeOf(args.output_mode)
  const target = args.path ?? '.'
  const excludes = await searchExclusions(ctx.access(), target, exec)
  const plan = await allowedPlan(ctx.access(), target, planGlobList(args.glob, args.type !== undefined), exec)
  const links = await planLinks(ctx, exec, target, ctx.fs?.(), ctx.access(), quietMarkOf(ctx, exec, target), excludes)
  const caseInsensitive = args['-i'] === true
  const multiline = args.multiline === true
  const searched = { rg: ctx.rg, target, plan, excludes, links, type: args.type }
  const fileList = claudeGrepFileListCommand(searched)
  const indexed = await planIndexedSearch(ctx, exec, { target, pattern: args.pattern, caseInsensitive, multiline, links, fileList })
  const command = buildClaudeGrepCommand({
    ...searched,
    lister: ctx.lister,
    modeFlags: grepMode.rgFlags(args, config),
    listsMtimes: grepMode.listsMtimes,
    pattern: args.pattern,
    caseInsensitive,
    multiline,
    index: indexed.route,
  })
  const request = pageRequest(args)
  // A result past what memory holds goes to a scratch file, in every mode, when the store gives one
  // and a spill could be saved (docs/design.md#results-bigger-than-memory).
  const store = ctx.spillStore()
  const canSave = store !== undefined && (exec.agent?.session.header.id ?? '') !== ''
  let scratch: SpillScratch | undefined
  let resolvedWorkdir = ''
  // A page holds at most its limit, and no more entries than its bytes allow (each takes at least 2).
  const pageCount = Math.min(request.limit, Math.ceil(config.inlineMaxBytes / 2) + 1)
  const show = (searched: Searched) =>
    displayFrom(resolvedWorkdir, searched === 'directory' ? path.resolve(resolvedWorkdir, target) : resolvedWorkdir)
  const stream: ModeStream = {
    pieces: (searched) => {
      scratch = canSave ? store.openScratch?.() : undefined
      // With a scratch file, the page is read back from it; without, the records up to the page's end stay in memory.
      const keep = scratch === undefined ? request.offset + pageCount : pageCount
      return new GrepPieces(scratch, { maxMatches: keep, maxPerFile: Number.POSITIVE_INFINITY }, show(searched))
    },
    runs: (keep) => {
      scratch = canSave ? store.openScratch?.() : undefined
      return new GlobRuns(scratch, keep)
    },
    counts: (searched, keep) => {
      scratch = canSave ? store.openScratch?.() : undefined
      return { runs: new CountRuns(scratch, keep), show: show(searched) }
    },
    page: { offset: request.offset, count: pageCount },
  }
  try {
    return await searchAndPage()
  } finally {
    scratch?.close()
  }

  async function searchAndPage(): Promise<ToolOutput> {
    const reader = grepMode.reader(args, config, target, stream)
    const searched = await runSearchCommand(ctx, exec, {
      command,
      narrow: 'pattern, path, glob or type',
      stdoutSink: (chunk) => reader.push(chunk),
      streams: true,
      onWorkdir: (workdir) => (resolvedWorkdir = workdir),
      onTimeout: 'partial',
    }).finally(indexed.release)
    const { workdir, timedOut } = searched
    const run = withoutSkippedLinks(searched.run, links)
    const call: ClaudeGrepCall = { workdir, target, glob: args.glob, type: args.type, plan, lister: ctx.lister }
    const missingType = unknownType(run)
    if (missingType !== undefined) throw await unknownTypeError(ctx, exec, missingType)
    // A run stopped at its time limit did not exit: what rg printed is the result (docs/design.md#a-timeout-returns-what-was-found).
    if (timedOut === undefined) assertClaudeGrepRan(run, call)
    const result = reader.finish(workdir, timedOut)
    const gaps = timedOut === undefined ? claudeGrepGaps(run, result.found, call) : timedOutGlobGaps(run)
    const linksFooter = linksNote(links, linkDisplay(target))
    // The footers that name paths are counted inside the page's byte budget; read again after windows, which can change them.
    const take = () => {
      const budget = config.inlineMaxBytes - Buffer.byteLength(namingFooters(result, gaps, run, linksFooter).join('\n\n'))
      return takePage(result.entries(request.offset), result.total, request, Math.max(0, budget))
    }
    let page = take()
    // After a timeout the call's time is spent: cut lines keep their heads.
    if (result.content !== undefined && timedOut === undefined) {
      // The page's long lines show their first match; the page is taken again, since its rows changed.
      const { matches, base, before } = result.content
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
      if (await showWindows(ctx, exec, matches, pageRecords(matches, page.offset - before, page.kept), search)) {
        page = take()
      }
    }
    const spillPlan: SpillPlan = {
      heading: result.heading,
      entries: { [Symbol.iterator]: () => (result.spillEntries?.() ?? result.entries(0))[Symbol.iterator]() },
      tail: timedOut === undefined ? '\n' : `\n\n${timeoutNote(timedOut, result.tally)}\n`,
      total: result.total,
      unit: result.unit,
      maxBytes: config.spillMaxBytes,
    }
    let spill = hasMore(page)
      ? await saveFormattedResult(ctx.spillStore(), exec, () => spillBlocks(spillPlan), 'grep-results.txt')
      : undefined
    if (spill?.saved === true && spillPlan.cut !== undefined) {
      spill = { ...spill, part: { saved: spillPlan.cut.saved, total: result.total, unit: result.unit, maxBytes: spillPlan.maxBytes } }
    }
    return {
      content: formatPage(result, page, spill, timedOut, namingFooters(result, gaps, run, linksFooter)),
      value: {
        mode,
        total: result.total,
        offset: page.offset,
        shown: page.kept,
        matches: result.matches,
        truncated: hasMore(page),
        incomplete: incompleteEntries(timedOut, [...listGaps(gaps.rg), ...gaps.unstatted]),
        ...(indexed.use === undefined ? {} : { index: indexed.use }),
      } satisfies ClaudeGrepValue,
      ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
    }
  }
}

/** The page: its heading, its entries (or why there are none), then the timeout and paging footers, then `footers`. */
function formatPage(
  result: ModeResult,
  page: Page,
  spill: SpillOutcome | undefined,
  timedOut: TimedOut | undefined,
  footers: string[],
): string {
  // A search stopped at its time limit has not looked everywhere: nothing found is not "none".
  const parts = [timedOut !== undefined && result.total === 0 ? `${result.heading} so far` : result.heading]
  if (result.total > 0) parts.push(page.offset >= result.total ? pastEndNote(page, result.unit) : page.text)
  if (timedOut !== undefined) parts.push(timeoutNote(timedOut, result.tally))
  const paging = page.offset < result.total ? pagingNote(page, result.unit, spill && claudeNames(spill)) : undefined
  if (paging !== undefined) parts.push(paging)
  return [...parts, ...footers].join('\n\n')
}

/** The footers that can name paths, each at most five: incompleteness, unread times, links, then the mode's own. */
function namingFooters(result: ModeResult, gaps: GlobGaps, run: BashRunResult, links: string | undefined): string[] {
  const parts: string[] = []
  const incomplete = incompleteNote(gaps.rg, run.stderr.truncated)
  if (incomplete !== undefined) parts.push(incomplete)
  if (gaps.unstatted.length > 0 || gaps.helperFailed) {
    parts.push(
      `(Listing incomplete: the modification time of some files could not be read, so they are not shown: ${nameSome(gaps.unstatted, '; ')}.)`,
    )
  }
  if (links !== undefined) parts.push(links)
  parts.push(...result.notes)
  return parts
}

/** The store's hint, with the tools named as this profile names them. */
function claudeNames(spill: SpillOutcome): SpillOutcome {
  if (!spill.saved) return spill
  return { ...spill, retrievalHint: spill.retrievalHint.replace(/\bread\b/g, 'Read').replace(/\bgrep\b/g, 'Grep') }
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
