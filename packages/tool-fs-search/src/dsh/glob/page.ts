// The glob page: the newest paths within the count and byte caps, then what the page does not show.
import type { ItemRetention } from '@dsh/core'
import { incompleteNote, nameSome, spillSentence } from '../../engine/footers.js'
import type { SpillOutcome } from '../../engine/spill.js'
import { timeoutNote, type TimedOut } from '../../engine/timeout.js'
import type { GlobGaps } from '../../engine/glob/classify.js'

/** The budgets of one glob page. */
export interface GlobBudget {
  maxResults: number
  maxBytes: number
}

/**
 * Keeps the head of the newest-first list within the item cap and the byte budget: at least one path,
 * so a page is never empty. Only the paths it keeps (and the one that did not fit) are made.
 */
export function retainGlobPaths(count: number, at: (index: number) => string, { maxResults, maxBytes }: GlobBudget): ItemRetention<string> {
  const items: string[] = []
  let bytes = 0
  for (let index = 0; index < Math.min(count, maxResults); index += 1) {
    const shown = at(index)
    bytes += Buffer.byteLength(shown) + 1
    if (bytes > maxBytes && index > 0) break
    items.push(shown)
  }
  return { items, kept: items.length, total: count, truncated: items.length < count }
}

/** What the page must say besides its paths. */
export interface GlobNotes {
  /** The executor stopped the listing at its time limit: the result is what arrived by then. */
  timedOut?: TimedOut | undefined
  gaps: GlobGaps
  /** The stderr was cut, so the gaps may be missing some names. */
  stderrCut: boolean
  /** Listed paths holding U+FFFD. */
  lossy: number
  /** The footer for symbolic links not followed (docs/design.md#symbolic-links). */
  links?: string | undefined
}

/** The footer for files rg listed that the mtime helper could not stat: named, never silently dropped. */
function unstattedNote(gaps: GlobGaps, stderrCut: boolean): string | undefined {
  if (!gaps.helperFailed) return undefined
  const lines = gaps.unstatted
  if (lines.length === 0)
    return '(Listing incomplete: the modification-time helper failed without a message, so files rg listed may be missing.)'
  const one = lines.length === 1
  const count = `${stderrCut ? 'at least ' : ''}${lines.length} file${one ? '' : 's'}`
  return `(Listing incomplete: ${count} rg listed could not be examined for ${one ? 'its' : 'their'} modification time, so ${one ? 'it is' : 'they are'} not shown: ${nameSome(lines, '; ')}.)`
}

/** The model-facing text: the page, then the timeout, cap, incompleteness and replaced-bytes footers. */
export function formatGlobPage(
  retained: ItemRetention<string>,
  spill: SpillOutcome | undefined,
  { timedOut, gaps, stderrCut, lossy, links }: GlobNotes,
): string {
  const empty = `${gaps.helperFailed ? 'No files to show' : 'No files found'}${timedOut === undefined ? '' : ' so far'}`
  const parts = [retained.total === 0 ? empty : retained.items.join('\n')]
  const found = retained.total === 0 ? 'no files' : `${retained.total} file${retained.total === 1 ? '' : 's'}`
  if (timedOut !== undefined) parts.push(timeoutNote(timedOut, found))
  if (spill !== undefined) {
    parts.push(`(Showing ${retained.kept} of ${retained.total} paths, newest first. ${spillSentence(spill, 'Full sorted result')})`)
  }
  for (const note of [incompleteNote(gaps.rg, stderrCut), unstattedNote(gaps, stderrCut), links]) if (note !== undefined) parts.push(note)
  // The seam decodes names lossily, so a name that is not UTF-8 shows U+FFFD (as grep notes too).
  if (lossy > 0)
    parts.push(`(${lossy} path${lossy === 1 ? ' contains' : 's contain'} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`)
  return parts.join('\n\n')
}
