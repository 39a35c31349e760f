// The rows of a grep page: a header line per file, then one `Line N: text` row per match.
import type { GrepMatch } from './parse.js'

/** Matches of one file, in line order. */
export interface GrepFileGroup {
  path: string
  matches: GrepMatch[]
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

const ROWS_PER_CHUNK = 4096

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
