// The grep tool: plan the include, run the script through the seam while parsing its output, classify, retain once, spill.
import path from 'node:path'
import { defineTool, type SpillScratch, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GREP_DESCRIPTION } from '../prompts.js'
import { allowedPlan, searchExclusions } from '../../engine/access.js'
import { TIMEOUT_BACKSTOP_MS, type SearchContext } from '../../engine/context.js'
import { displayFrom, explicitPath } from '../../engine/display-path.js'
import { listGaps, type SearchGaps } from '../../engine/exit-2.js'
import { linkDisplay, linksNote, planLinks, withoutSkippedLinks } from '../../engine/links.js'
import { planIndexedSearch, quietMarkOf } from '../../engine/index-plan.js'
import { runSearchCommand } from '../../engine/run.js'
import { saveFormattedResult } from '../../engine/spill.js'
import { incompleteEntries, timedOutGaps } from '../../engine/timeout.js'
import { GrepArgs } from './args.js'
import { assertGrepRan, partialSearchErrors } from '../../engine/grep/classify.js'
import { buildGrepCommand, grepFileListCommand } from '../../engine/grep/command.js'
import { planInclude } from '../../engine/grep/include.js'
import { listMatches, recordsOf, showMatches, showStreamedMatches, type ShownMatches } from '../../engine/grep/matches.js'
import { GrepPieces, type LoadedRecords } from '../../engine/grep/pieces.js'
import { formatGrepPage, grepSpillBlocks, type GrepNotes, type GrepSpillPlan } from './page.js'
import { RgOutputParser, type GrepMatch, type ParsedOutput } from '../../engine/grep/parse.js'
import { MATCHES_VIEW_SCHEMA, presentGrepResult } from '../presentation.js'
import { grepSearchMeta } from './meta.js'
import { retainGrepMatches, type RetainedGrep } from './retain.js'
import type { GrepValue } from '../../values.js'
import { showWindows } from '../../engine/grep/windows.js'

/**
 * Runs one grep call end to end (docs/design.md#the-search-tools). rg's output is parsed as it
 * arrives and compacted to the bytes its rows show, files are sorted rather than matches, and the
 * complete result is streamed to the spill (docs/design.md#grep-keeps-bytes-not-matches): a match
 * never becomes an object unless a host reads `value.matches`. Past `rawOutputMaxBytes` the records
 * move to the spill store's scratch file as they arrive, and the page and spill are made from there
 * (docs/design.md#results-bigger-than-memory); the scratch file is closed however the call ends.
 */
export async function executeGrep(ctx: SearchContext, args: GrepArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const { config } = ctx
  const target = args.path ?? '.'
  const excludes = await searchExclusions(ctx.access(), target, exec)
  const plan = await allowedPlan(ctx.access(), target, planInclude(args.include), exec)
  const links = await planLinks(ctx, exec, target, ctx.fs?.(), ctx.access(), quietMarkOf(ctx, exec, target), excludes)
  const searched = { rg: ctx.rg, target, plan, excludes, links }
  const indexed = await planIndexedSearch(ctx, exec, {
    target,
    pattern: args.pattern,
    caseInsensitive: false,
    multiline: false,
    links,
    fileList: grepFileListCommand(searched),
  })
  const command = buildGrepCommand({ ...searched, pattern: args.pattern, maxLineBytes: config.grepMaxLineBytes, index: indexed.route })
  const budget = { maxMatches: config.grepMaxMatches, maxBytes: config.inlineMaxBytes, maxPerFile: config.grepMaxMatchesPerFile }
  // A result past what memory holds goes to a scratch file, when the store gives one and a spill could be saved.
  const store = ctx.spillStore()
  const canSave = store !== undefined && (exec.agent?.session.header.id ?? '') !== ''
  let scratch: SpillScratch | undefined
  let resolvedWorkdir = ''
  const parser = new RgOutputParser(config.grepMaxLineBytes, config.rawOutputMaxBytes, {
    fileTarget: explicitPath(target),
    pieces: (searched) => {
      scratch = canSave ? store.openScratch?.() : undefined
      return new GrepPieces(scratch, budget, displayFrom(resolvedWorkdir, baseOf(searched, resolvedWorkdir, target)))
    },
  })
  try {
    return await grepAndAnswer()
  } finally {
    scratch?.close()
  }

  async function grepAndAnswer(): Promise<ToolOutput> {
    const searched = await runSearchCommand(ctx, exec, {
      command,
      narrow: 'pattern, path or include',
      stdoutSink: (chunk) => parser.push(chunk),
      streams: true,
      onWorkdir: (workdir) => (resolvedWorkdir = workdir),
      onTimeout: 'partial',
    }).finally(indexed.release)
    const { workdir, timedOut } = searched
    const run = withoutSkippedLinks(searched.run, links)
    const call = { workdir, target, include: args.include, plan }
    let output: ParsedOutput
    let incomplete: SearchGaps
    if (timedOut === undefined) {
      assertGrepRan(run, call)
      output = parser.finish()
      incomplete = partialSearchErrors(run, output, call)
    } else {
      // rg did not exit, so there is no status to read: what it printed is the result (docs/design.md#a-timeout-returns-what-was-found).
      output = parser.finishStopped()
      incomplete = timedOutGaps(run)
    }
    const base = baseOf(output.searched, workdir, target)
    const shown = displayFrom(workdir, base)
    const { streamed } = output
    const matches = streamed === undefined ? showMatches(output, shown) : showStreamedMatches(streamed, shown)
    const retain = (): RetainedGrep => retainGrepMatches(matches, budget)
    let retained = retain()
    // The page's long lines show their first match; the page is retained again, since its rows changed.
    const page = retained.groups.flatMap(({ file, count }) =>
      recordsOf(matches, matches.files[file]!, count).map((record) => ({ file: matches.files[file]!, record })),
    )
    const search = { rg: ctx.rg, pattern: args.pattern, base, maxLineBytes: config.grepMaxLineBytes }
    // After a timeout the call's time is spent: cut lines keep their heads.
    if (timedOut === undefined && (await showWindows(ctx, exec, matches, page, search))) retained = retain()
    const notes: GrepNotes = {
      timedOut,
      incomplete,
      stderrCut: run.stderr.truncated,
      binary: output.binaryFiles.map(shown),
      binaryStopped: output.binaryStopped.map(shown),
      lossy: matches.lossy,
      escaped: matches.escaped,
      links: linksNote(links, linkDisplay(target)),
    }
    // The complete result is formatted only when it is saved, block by block.
    const spillPlan: GrepSpillPlan = { maxBytes: config.spillMaxBytes }
    if (streamed !== undefined) spillPlan.rest = restOf(streamed.rest, shown)
    let spill = retained.truncated
      ? await saveFormattedResult(store, exec, () => grepSpillBlocks(matches, notes, spillPlan), 'grep-results.txt')
      : undefined
    if (spill?.saved === true && spillPlan.cut !== undefined) {
      spill = { ...spill, part: { saved: spillPlan.cut.saved, total: matches.total, unit: 'matches', maxBytes: spillPlan.maxBytes } }
    }
    let listed: GrepMatch[] | undefined
    const gaps = incompleteEntries(timedOut, listGaps(incomplete))
    return {
      content: formatGrepPage(retained, spill, notes),
      value: {
        get matches(): GrepMatch[] {
          return (listed ??= listMatches(matches))
        },
        ...(streamed === undefined ? {} : { matchesCut: true as const }),
        total: retained.total,
        truncated: retained.truncated,
        incomplete: gaps,
        ...(indexed.use === undefined ? {} : { index: indexed.use }),
      } satisfies GrepValue,
      // A nested dispatch has no UI to show a card (docs/design.md#the-search-card).
      ...(exec.nested === true
        ? {}
        : { presentationMeta: grepSearchMeta(retained, config.searchMetaMaxBytes, gaps.length > 0, indexed.use) }),
      ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
    }
  }
}

/** What rg's paths are relative to: the directory searched, or the workdir for a file. */
function baseOf(searched: 'directory' | 'file', workdir: string, target: string): string {
  return searched === 'directory' ? path.resolve(workdir, target) : workdir
}

/**
 * A streamed result's files after the page's, shown one at a time as the spill is written; a result
 * whose dropped records have no scratch file to come back from cannot be saved whole.
 */
function* restOf(rest: (() => Generator<LoadedRecords>) | undefined, shown: (file: string) => string): Generator<ShownMatches> {
  if (rest === undefined) throw new Error('the result is larger than memory and the spill store keeps no scratch file')
  for (const loaded of rest()) yield showMatches(loaded, shown)
}

/** The grep tool: read-only and safe to run beside other searches (docs/design.md#read-only-and-concurrency-safe). */
export function createGrepTool(ctx: SearchContext) {
  return defineTool({
    name: 'grep',
    description: GREP_DESCRIPTION,
    parameters: GrepArgs,
    timeoutMs: ctx.config.timeoutMs + TIMEOUT_BACKSTOP_MS,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'search file contents regex ripgrep find text',
    execute: (args, exec) => executeGrep(ctx, args, exec),
    presentCall: (args) => ({
      card: 'generic',
      kind: 'search',
      title: `grep ${args.pattern}`,
      ...(args.path === undefined ? {} : { detail: args.path }),
    }),
    presentResult: presentGrepResult,
    resultViewSchema: MATCHES_VIEW_SCHEMA,
  })
}
