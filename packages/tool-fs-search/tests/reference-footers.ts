// The footer sentences as the equivalence oracles expect them, written apart from the product's
// src/engine/footers.ts: the wording is the page's contract (docs/design.md#deterministic-pages), so an
// oracle that imported it would agree with any change to it.
import type { SearchGaps } from '../src/engine/exit-2.js'
import type { SpillOutcome } from '../src/engine/spill.js'

/** The first five names in code-unit order, then how many more there are. */
export function referenceNameSome(names: readonly string[], separator = ', '): string {
  const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const shown = sorted.slice(0, 5).join(separator)
  return sorted.length <= 5 ? shown : `${shown}${separator}and ${sorted.length - 5} more`
}

/** What a page says when rg could not read everything (exit 2 with output). */
export function referenceIncompleteNote(gaps: SearchGaps, stderrCut: boolean): string | undefined {
  if (gaps.unexplained !== undefined) {
    return `(Search incomplete: rg exited with status 2, so some results may be missing; it printed: ${gaps.unexplained}.)`
  }
  const count = gaps.paths.length
  if (count === 0) return undefined
  const how = `${stderrCut ? 'at least ' : ''}${count} ${count === 1 ? 'path' : 'paths'}`
  return `(Search incomplete: rg could not read ${how}, so results from them are missing: ${referenceNameSome(gaps.paths, '; ')}.)`
}

/** Where the complete result went, or why it was not kept. */
export function referenceSpillSentence(outcome: SpillOutcome, what: string): string {
  if (outcome.saved && outcome.part !== undefined) {
    const { saved, total, unit, maxBytes } = outcome.part
    return `The first ${saved} of ${total} ${unit} stored at: ${outcome.locator}. ${outcome.retrievalHint} The rest is not saved: the complete result passes spillMaxBytes (${maxBytes} bytes); narrow the search to see it.`
  }
  return outcome.saved
    ? `${what} stored at: ${outcome.locator}. ${outcome.retrievalHint}`
    : `The complete result could not be saved (${outcome.reason}); narrow the search to see the rest.`
}
