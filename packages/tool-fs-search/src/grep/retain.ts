// Retaining a grep page once, within its count, byte and per-file budgets.
import { ItemRetainer } from '@dsh/core'
import { countWithinBytes } from '../shared/byte-budget.js'
import type { GrepMatch } from './parse.js'
import { formatRow, groupByFile, type GrepFileGroup } from './rows.js'

/** A file whose matches the per-file cap cut from the page. */
export interface CutFile {
  path: string
  shown: number
  total: number
}

/** The one retention outcome the page text, the spill and any UI projection all read, so they cannot disagree. */
export interface RetainedGrep {
  files: GrepFileGroup[]
  kept: number
  total: number
  truncated: boolean
  cutFiles: CutFile[]
}

/** The budgets of one page. */
export interface GrepBudget {
  maxMatches: number
  maxBytes: number
  maxPerFile: number
}

/** The bytes a match adds to the page: its row, plus its file's header when it opens a group. */
function matchCost(match: GrepMatch, opensGroup: boolean): number {
  const row = Buffer.byteLength(formatRow(match)) + 1
  return opensGroup ? row + Buffer.byteLength(match.path) + 2 : row
}

/**
 * Retains the page once, with every budget (docs/design.md#bytes-not-only-counts). `matches` must be
 * sorted by path, then line. When everything fits, everything is kept; otherwise no file keeps more
 * than `maxPerFile` (when several files matched), then the head is kept within the count and byte caps.
 */
export function retainGrepMatches(matches: readonly GrepMatch[], budget: GrepBudget): RetainedGrep {
  const fitsWhole = matches.length <= budget.maxMatches && fitsInBytes(matches, budget.maxBytes)
  const perFile = new Map<string, number>()
  if (!fitsWhole) for (const m of matches) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1)
  const capPerFile = perFile.size > 1

  const candidates = capPerFile ? matches.filter(withinFileCap(budget.maxPerFile)) : matches
  const fits = countWithinBytes(candidates, budget.maxBytes, (m) => matchCost(m, true))
  const retainer = new ItemRetainer<GrepMatch>({ maxItems: Math.min(budget.maxMatches, fits) })
  for (const m of candidates) retainer.push(m)
  const kept = retainer.result().items
  const shown = new Map<string, number>()
  for (const m of kept) shown.set(m.path, (shown.get(m.path) ?? 0) + 1)
  const cutFiles = capPerFile
    ? [...perFile].filter(([, total]) => total > budget.maxPerFile).map(([path, total]) => ({ path, shown: shown.get(path) ?? 0, total }))
    : []
  return { files: groupByFile(kept), kept: kept.length, total: matches.length, truncated: kept.length < matches.length, cutFiles }
}

/** Every match, uncapped: the complete result a capped page's spill holds. */
export function retainEveryMatch(matches: readonly GrepMatch[]): RetainedGrep {
  return { files: groupByFile(matches), kept: matches.length, total: matches.length, truncated: false, cutFiles: [] }
}

/** Whether every match fits in `maxBytes`; stops counting as soon as one does not. */
function fitsInBytes(matches: readonly GrepMatch[], maxBytes: number): boolean {
  let bytes = 0
  for (let i = 0; i < matches.length; i += 1) {
    bytes += matchCost(matches[i]!, i === 0 || matches[i - 1]!.path !== matches[i]!.path)
    if (bytes > maxBytes) return false
  }
  return true
}

function withinFileCap(maxPerFile: number): (m: GrepMatch) => boolean {
  const seen = new Map<string, number>()
  return (m) => {
    const n = (seen.get(m.path) ?? 0) + 1
    seen.set(m.path, n)
    return n <= maxPerFile
  }
}
