// Retaining a grep page once, within its count, byte and per-file budgets.
import { ItemRetainer, type TextRetainer } from '@dsh/core'
import type { RgMatch } from './grep-parse.js'
import { countWithinBytes } from './search-core.js'

/** A match ready to show: display path, line number, a bounded preview. */
export type GrepMatch = RgMatch

/** Matches of one file, in line order. */
export interface GrepFileGroup {
  path: string
  matches: GrepMatch[]
}

/** A file whose matches the per-file cap cut from the page. */
export interface CutFile {
  path: string
  shown: number
  total: number
}

/** The one retention outcome both the text and any UI projection read (seed 001: retain once). */
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
  maxLineBytes: number
}

/** Cuts a line to its preview budget at a UTF-8 boundary. */
export function previewLine(line: string, alreadyCut: boolean, retainer: TextRetainer): { line: string; lineCut: boolean } {
  const kept = retainer.retain(line)
  return { line: kept.text, lineCut: alreadyCut || kept.truncated }
}

/** The bytes a match adds to the page: its row, plus its file's header when it opens a group. */
function matchCost(match: GrepMatch, opensGroup: boolean): number {
  const row = Buffer.byteLength(formatRow(match)) + 1
  return opensGroup ? row + Buffer.byteLength(match.path) + 2 : row
}

/**
 * Retains the page once, with every budget (DESIGN amendment 11). `matches` must be sorted by path,
 * then line. When everything fits, everything is kept; otherwise no file keeps more than
 * `maxPerFile` (when several files matched), then the head is kept within the count and byte caps.
 */
export function retainGrepMatches(matches: readonly GrepMatch[], budget: GrepBudget): RetainedGrep {
  const fitsWhole = matches.length <= budget.maxMatches && fitsInBytes(matches, budget.maxBytes)
  const perFile = new Map<string, number>()
  if (!fitsWhole) for (const m of matches) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1)
  const capPerFile = perFile.size > 1

  const candidates = capPerFile ? matches.filter(withinFileCap(budget.maxPerFile)) : matches
  const fits = countWithinBytes(candidates, budget.maxBytes, (m) => matchCost(m, true))
  const retainer = new ItemRetainer<GrepMatch>({ kind: 'head', maxItems: Math.min(budget.maxMatches, fits) })
  for (const m of candidates) retainer.push(m)
  const kept = retainer.result().items
  const shown = new Map<string, number>()
  for (const m of kept) shown.set(m.path, (shown.get(m.path) ?? 0) + 1)
  const cutFiles = capPerFile
    ? [...perFile].filter(([, total]) => total > budget.maxPerFile).map(([path, total]) => ({ path, shown: shown.get(path) ?? 0, total }))
    : []
  return { files: groupByFile(kept), kept: kept.length, total: matches.length, truncated: kept.length < matches.length, cutFiles }
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

/** Groups consecutive matches of a file; the input is sorted, so each file forms one group. */
export function groupByFile(matches: readonly GrepMatch[]): GrepFileGroup[] {
  const groups: GrepFileGroup[] = []
  for (const m of matches) {
    const last = groups.at(-1)
    if (last?.path === m.path) last.matches.push(m)
    else groups.push({ path: m.path, matches: [m] })
  }
  return groups
}

/**
 * One result row as the model reads it. A cut line is marked before the colon, where a line's own
 * text cannot reach: a marker after the text could be forged by a line that ends in it.
 */
export function formatRow(match: GrepMatch): string {
  return `Line ${match.lineNumber}${match.lineCut ? ' (cut)' : ''}: ${match.line}`
}

/** File groups as text: a header line per file, then its rows; a blank line between files. */
export function formatGroups(files: readonly GrepFileGroup[]): string {
  // Rows are joined a few thousand at a time: a spill of a million matches then holds its text and
  // one batch of row strings at once, not a million row strings and the text.
  const chunks: string[] = []
  let batch: string[] = []
  const push = (line: string): void => {
    batch.push(line)
    if (batch.length === ROWS_PER_CHUNK) {
      chunks.push(batch.join('\n'))
      batch = []
    }
  }
  files.forEach((group, index) => {
    if (index > 0) push('')
    push(group.path)
    for (const match of group.matches) push(formatRow(match))
  })
  if (batch.length > 0) chunks.push(batch.join('\n'))
  return chunks.join('\n')
}

const ROWS_PER_CHUNK = 4096
