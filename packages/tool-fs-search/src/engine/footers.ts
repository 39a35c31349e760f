// The footer sentences both tools write: a few names out of many, an incomplete search, the spill.
import type { SearchGaps } from './exit-2.js'
import type { SpillOutcome } from './spill.js'

/** How many names a footer lists before it only counts the rest. */
const NAMED_MAX = 5

/**
 * Names at most five of `names` and counts the rest. Sorted, because rg reports in its walk order,
 * which changes between identical calls; a footer must not (docs/design.md#deterministic-pages).
 */
export function nameSome(names: readonly string[], separator = ', '): string {
  const sorted = [...names].sort()
  const more = sorted.length > NAMED_MAX ? `${separator}and ${sorted.length - NAMED_MAX} more` : ''
  return `${sorted.slice(0, NAMED_MAX).join(separator)}${more}`
}

/**
 * The footer for a search rg could not finish everywhere (exit 2 with output): not a failure, not
 * complete. When stderr was cut, the count is a lower bound and says so.
 */
export function incompleteNote(gaps: SearchGaps, stderrCut: boolean): string | undefined {
  if (gaps.unexplained !== undefined)
    return `(Search incomplete: rg exited with status 2, so some results may be missing; it printed: ${gaps.unexplained}.)`
  const errors = gaps.paths
  if (errors.length === 0) return undefined
  const count = `${stderrCut ? 'at least ' : ''}${errors.length} path${errors.length === 1 ? '' : 's'}`
  return `(Search incomplete: rg could not read ${count}, so results from them are missing: ${nameSome(errors, '; ')}.)`
}

/** The footer sentence for a capped result: where the rest is, or that it could not be kept. */
export function spillSentence(outcome: SpillOutcome, what: string): string {
  const part = outcome.saved ? outcome.part : undefined
  if (outcome.saved && part !== undefined) {
    return `The first ${part.saved} of ${part.total} ${part.unit} stored at: ${outcome.locator}. ${outcome.retrievalHint} The rest is not saved: the complete result passes spillMaxBytes (${part.maxBytes} bytes); narrow the search to see it.`
  }
  if (outcome.saved) return `${what} stored at: ${outcome.locator}. ${outcome.retrievalHint}`
  return `The complete result could not be saved (${outcome.reason}); narrow the search to see the rest.`
}
