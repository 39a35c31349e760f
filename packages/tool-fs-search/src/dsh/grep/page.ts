// The grep page as the model reads it: a count, file groups, then footers for what the page does not show.
import type { SearchGaps } from '../../engine/exit-2.js'
import { incompleteNote, nameSome, spillSentence } from '../../engine/footers.js'
import type { SpillOutcome } from '../../engine/spill.js'
import { timeoutNote, type TimedOut } from '../../engine/timeout.js'
import type { ShownMatches } from '../../engine/grep/matches.js'
import { retainEveryMatch, type RetainedGrep } from './retain.js'
import { formatGroups, groupBlocks } from '../../engine/grep/rows.js'

/** What the page must say besides its matches. */
export interface GrepNotes {
  /** The executor stopped rg at its time limit: the result is what it printed by then. */
  timedOut?: TimedOut | undefined
  incomplete: SearchGaps
  /** rg's stderr was cut, so `incomplete` may be missing some paths. */
  stderrCut: boolean
  binary: readonly string[]
  binaryStopped: readonly string[]
  /** Matches whose line or path held bytes that were not valid UTF-8. */
  lossy: number
  /** Matched lines whose control characters are shown escaped. */
  escaped: number
  /** The footer for symbolic links not followed (docs/design.md#symbolic-links). */
  links?: string | undefined
}

/**
 * The footers: a timeout, per-file cuts, the spill, incompleteness, binary files, replaced bytes,
 * escapes; each names at most five. A timeout comes first: it qualifies every count after it.
 */
function footers(retained: RetainedGrep, spill: SpillOutcome | undefined, notes: GrepNotes): string[] {
  const lines: string[] = []
  if (notes.timedOut !== undefined) lines.push(timeoutNote(notes.timedOut, matchesFound(retained)))
  const cut = retained.cutFiles.filter((f) => f.shown > 0)
  if (cut.length > 0) {
    lines.push(
      `(Per-file cap: these files show only some of their matches: ${nameSome(cut.map((f) => `${f.path} (${f.shown} of ${f.total})`))}.)`,
    )
  }
  if (spill !== undefined) lines.push(`(${spillSentence(spill, 'Full grep result')})`)
  const incomplete = incompleteNote(notes.incomplete, notes.stderrCut)
  if (incomplete !== undefined) lines.push(incomplete)
  if (notes.links !== undefined) lines.push(notes.links)
  const { binary, binaryStopped, lossy, escaped } = notes
  if (binary.length > 0) lines.push(`(Binary file${binary.length === 1 ? '' : 's'} matched, lines not shown: ${nameSome(binary)}.)`)
  if (binaryStopped.length > 0) {
    lines.push(`(rg stopped at binary content in ${nameSome(binaryStopped)}, so matches after it are missing.)`)
  }
  // Only bytes that were replaced count: a U+FFFD the file (or its name) holds is shown as it is, without a note.
  if (lossy > 0)
    lines.push(
      `(${lossy} matched line${lossy === 1 ? '' : 's'} or path${lossy === 1 ? ' contains' : 's contain'} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`,
    )
  // An escape reads like a file's own backslash text; the footer says which it is.
  if (escaped > 0) {
    lines.push(
      `(${escaped} matched line${escaped === 1 ? ' contains' : 's contain'} control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)`,
    )
  }
  return lines
}

/** The model-facing page: the count, the file groups, then the footers. */
export function formatGrepPage(retained: RetainedGrep, spill: SpillOutcome | undefined, notes: GrepNotes): string {
  const body = retained.total > 0 ? formatGroups(retained.matches, retained.groups) : ''
  return [heading(retained, notes, body), ...footers(retained, spill, notes)].join('\n\n')
}

/** What a spill holds beyond `matches`, and how large it may grow. */
export interface GrepSpillPlan {
  /** The files after those of `matches`, in order: a streamed result's rest (docs/design.md#results-bigger-than-memory). */
  rest?: Iterable<ShownMatches> | undefined
  /** `spillMaxBytes`: the spill stops at the last whole block of rows that fits, and says so. */
  maxBytes: number
  /** Set when the spill was cut: how many matches it holds. */
  cut?: { saved: number }
}

// Room kept under `maxBytes` for the sentence that says the spill was cut.
const CUT_NOTE_BYTES = 256

/**
 * The complete result, as the spill keeps it, in blocks of UTF-8 bytes (docs/design.md#streamed-spills):
 * what `formatGrepPage` gives for every match, and a final newline, without building it as one string.
 * Past `plan.maxBytes` it keeps the rows that fit and says how many of the total those are.
 */
export function* grepSpillBlocks(matches: ShownMatches, notes: GrepNotes, plan: GrepSpillPlan): Generator<Uint8Array> {
  const every = retainEveryMatch(matches)
  // The heading ends where the groups start; with no match it is the whole first part.
  const head = Buffer.from(heading(every, notes, ''))
  const tail = footers(every, undefined, notes)
    .map((footer) => `\n\n${footer}`)
    .join('')
  yield head
  let room = plan.maxBytes - head.length - Buffer.byteLength(tail) - CUT_NOTE_BYTES
  const progress = { rows: 0 }
  let saved = 0
  for (const block of groupBlocks(matches, { progress, rest: plan.rest ?? [] })) {
    if (block.length > room) {
      plan.cut = { saved }
      break
    }
    room -= block.length
    saved = progress.rows
    yield block
  }
  const cut =
    plan.cut === undefined
      ? ''
      : `\n\n(This file holds the first ${saved} of ${every.total} matches: the complete result passes spillMaxBytes, ${plan.maxBytes} bytes.)`
  yield Buffer.from(`${cut}${tail}\n`)
}

/** The count, then the groups; a binary file searched by name matches without a line to show: not "no matches". */
function heading(retained: RetainedGrep, notes: GrepNotes, groups: string): string {
  if (retained.total === 0) {
    const none = notes.binary.length > 0 ? 'No matching lines to show' : 'No matches found'
    // A search stopped at its time limit has not looked everywhere: nothing found is not "none".
    return notes.timedOut === undefined ? none : `${none} so far`
  }
  const count = retained.truncated ? `${retained.kept} of ${retained.total}` : `${retained.total}`
  return `Found ${count} match${retained.total === 1 ? '' : 'es'}\n\n${groups}`
}

/** What a partial result found, in the timeout note's words: "12 matches in 3 files". */
function matchesFound({ total, matches }: RetainedGrep): string {
  if (total === 0) return 'no matches'
  const files = matches.fileCount ?? matches.files.length
  return `${total} match${total === 1 ? '' : 'es'} in ${files} file${files === 1 ? '' : 's'}`
}
