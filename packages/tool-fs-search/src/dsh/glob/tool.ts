// The glob tool: plan the pattern, run the script through the seam while parsing its listing, classify, order, retain once, spill.
import path from 'node:path'
import { defineTool, type SpillScratch, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GLOB_DESCRIPTION } from '../prompts.js'
import { searchExclusions } from '../../engine/access.js'
import { TIMEOUT_BACKSTOP_MS, type ListingContext } from '../../engine/context.js'
import { nameDisplay } from '../../engine/display-path.js'
import { listGaps } from '../../engine/exit-2.js'
import { linkDisplay, linksNote, planLinks, withoutSkippedLinks } from '../../engine/links.js'
import { runSearchCommand } from '../../engine/run.js'
import { saveFormattedResult } from '../../engine/spill.js'
import { incompleteEntries } from '../../engine/timeout.js'
import type { GlobValue } from '../../values.js'
import { GlobArgs } from './args.js'
import { classifyGlobRun, timedOutGlobGaps } from '../../engine/glob/classify.js'
import { buildGlobCommand } from '../../engine/glob/command.js'
import { GlobListingParser } from '../../engine/glob/listing.js'
import { TimeStamper } from '../../engine/glob/stamps.js'
import { planIndexedListing, type IndexedListing } from '../../engine/index-plan.js'
import { sortNewestFirst } from '../../engine/glob/order.js'
import { GlobRuns, mergedPathBlocks } from '../../engine/glob/runs.js'
import { formatGlobPage, retainGlobPaths } from './page.js'
import { cutPathBlocks, pathBlocks, showPaths, type PathsCut, type ShownPaths } from '../../engine/glob/paths.js'
import { planGlob } from './pattern.js'
import { PATHS_VIEW_SCHEMA, presentGlobResult } from '../presentation.js'
import { globSearchMeta } from './meta.js'

/**
 * Runs one glob call end to end (docs/design.md#the-search-tools). The listing is parsed as it arrives,
 * sorted as numbers and bytes, and only the paths a page shows become strings; the complete result is
 * streamed to the spill.
 */
export async function executeGlob(ctx: ListingContext, args: GlobArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const { root, glob } = planGlob(args)
  const excludes = await searchExclusions(ctx.access(), root, exec)
  const links = await planLinks(ctx, exec, root, ctx.fs?.(), ctx.access(), undefined, excludes)
  const indexed = await planIndexedListing(ctx, exec, { target: root, links })
  const timesFromIndex = indexed.timeOf !== undefined
  const command = buildGlobCommand({ rg: ctx.rg, lister: ctx.lister, root, glob, excludes, links, timesFromIndex })
  // A listing past what memory holds goes to the scratch file in sorted runs, when a spill could be
  // saved; else only each run's page candidates stay (docs/design.md#results-bigger-than-memory).
  const store = ctx.spillStore()
  const canSave = store !== undefined && (exec.agent?.session.header.id ?? '') !== ''
  const scratch: SpillScratch | undefined = canSave ? store.openScratch?.() : undefined
  try {
    return await listAndAnswer(ctx, exec, { root, command, links, indexed, scratch, canSave })
  } finally {
    scratch?.close()
  }
}

/** What a glob call has planned before its script runs. */
interface GlobPlan {
  root: string
  command: string
  links: Awaited<ReturnType<typeof planLinks>>
  /** The times the index gives, when it does, and how it took part. */
  indexed: IndexedListing
  /** Where a listing larger than memory goes; undefined: only the page's candidates are kept. */
  scratch: SpillScratch | undefined
  /** The store and the session a spill needs are there. */
  canSave: boolean
}

/** Lists, orders and answers: a listing past half the raw output cap streams through sorted runs. */
async function listAndAnswer(
  ctx: ListingContext,
  exec: ToolExecContext,
  { root, command, links, indexed, scratch, canSave }: GlobPlan,
): Promise<ToolOutput> {
  const runs = new GlobRuns(scratch, ctx.config.globMaxResults)
  const parser = new GlobListingParser(ctx.config.rawOutputMaxBytes, runs)
  // With the index's times, rg's names are stamped here, as the helper would have stamped them.
  const stamper = indexed.timeOf === undefined ? undefined : new TimeStamper(indexed.timeOf, (chunk) => parser.push(chunk))
  const searched = await runSearchCommand(ctx, exec, {
    command,
    narrow: 'pattern or path',
    stdoutSink: stamper === undefined ? (chunk) => parser.push(chunk) : (chunk) => stamper.push(chunk),
    streams: true,
    onTimeout: 'partial',
  })
  const { workdir, timedOut } = searched
  const run = withoutSkippedLinks(searched.run, links)
  // A name still arriving when the listing was stopped is dropped, as the parser drops a record.
  if (timedOut === undefined) stamper?.finish()
  // A listing stopped at its time limit is sorted and paged as it stands (docs/design.md#a-timeout-returns-what-was-found).
  let gaps = timedOut === undefined ? classifyGlobRun(parser.captured(run), { workdir, root, lister: ctx.lister }) : timedOutGlobGaps(run)
  if (stamper !== undefined && stamper.unstatted.length > 0) gaps = { ...gaps, unstatted: stamper.unstatted, helperFailed: true }
  const index = indexed.use(stamper?.recorded ?? 0)
  const listing = timedOut === undefined ? parser.finish() : parser.finishStopped()
  const display = nameDisplay(workdir, path.resolve(workdir, root))
  const streamed = parser.streamed
  // A streamed listing's last run is sorted as the runs before it were; a listing held whole is sorted here.
  const order = streamed ? undefined : sortNewestFirst(listing)
  if (streamed) runs.add(listing)
  const shown = order === undefined ? runs.shown(display) : showPaths(listing, order, display)
  const retained = retainGlobPaths(shown.count, shown.at, { maxResults: ctx.config.globMaxResults, maxBytes: ctx.config.inlineMaxBytes })
  const cut: PathsCut = { maxBytes: ctx.config.spillMaxBytes }
  const blocks = (): Iterable<Uint8Array> =>
    cutPathBlocks(order === undefined ? mergedPathBlocks(runs, display) : pathBlocks(listing, order, display), cut)
  let spill = retained.truncated
    ? streamed && !runs.complete && canSave
      ? { saved: false as const, reason: 'the spill store gives no scratch file to hold a listing this large' }
      : await saveFormattedResult(ctx.spillStore(), exec, blocks, 'glob-results.txt')
    : undefined
  if (spill?.saved === true && cut.cut !== undefined) {
    spill = { ...spill, part: { saved: cut.cut.saved, total: shown.count, unit: 'paths', maxBytes: cut.maxBytes } }
  }
  // A streamed listing's paths are read from the scratch file, which closes when this call returns:
  // its newest are taken now, as many as a page may show; the spill holds them all.
  let paths = streamed ? newest(shown, Math.min(shown.count, ctx.config.globMaxResults)) : undefined
  const incomplete = incompleteEntries(timedOut, [...listGaps(gaps.rg), ...gaps.unstatted])
  return {
    content: formatGlobPage(retained, spill, {
      timedOut,
      gaps,
      stderrCut: run.stderr.truncated,
      lossy: shown.lossy,
      links: linksNote(links, linkDisplay(root)),
    }),
    value: {
      // Every path as a string only when a host reads them.
      get paths(): string[] {
        return (paths ??= newest(shown, shown.count))
      },
      ...(streamed && shown.count > ctx.config.globMaxResults ? { pathsCut: true as const } : {}),
      total: shown.count,
      truncated: retained.truncated,
      incomplete,
      ...(index === undefined ? {} : { index }),
    } satisfies GlobValue,
    // A nested dispatch has no UI to show a card (docs/design.md#the-search-card).
    ...(exec.nested === true
      ? {}
      : { presentationMeta: globSearchMeta(retained, ctx.config.searchMetaMaxBytes, incomplete.length > 0, index) }),
    ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
  }
}

/** The first `count` paths of a listing, newest first. */
function newest(shown: ShownPaths, count: number): string[] {
  return Array.from({ length: count }, (_, index) => shown.at(index))
}

/** The glob tool: read-only and safe to run beside other searches (docs/design.md#read-only-and-concurrency-safe). */
export function createGlobTool(ctx: ListingContext) {
  return defineTool({
    name: 'glob',
    description: GLOB_DESCRIPTION,
    parameters: GlobArgs,
    timeoutMs: ctx.config.timeoutMs + TIMEOUT_BACKSTOP_MS,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'find files by name pattern list directory',
    execute: (args, exec) => executeGlob(ctx, args, exec),
    presentCall: (args) => ({
      card: 'generic',
      kind: 'search',
      title: `glob ${args.pattern}`,
      ...(args.path === undefined ? {} : { detail: args.path }),
    }),
    presentResult: presentGlobResult,
    resultViewSchema: PATHS_VIEW_SCHEMA,
  })
}
