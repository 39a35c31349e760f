// The grep page as the model reads it: a count, file groups, then footers for everything the page
// does not show (cut files, the spill, unreadable paths, binary files, replaced bytes).
import { formatGroups, type RetainedGrep } from './grep-retain.js'
import { incompleteNote } from './search-core.js'
import { spillSentence, type SpillOutcome } from './spill.js'

/** The notes that follow a page: per-file cuts, the spill, incompleteness, binary files, lossy bytes. */
export interface GrepNotes {
  incomplete: readonly string[]
  binary: readonly string[]
  binaryStopped: readonly string[]
  lossy: number
}

export function footers(retained: RetainedGrep, spill: SpillOutcome | undefined, { incomplete, binary, binaryStopped, lossy }: GrepNotes): string[] {
  const notes: string[] = []
  if (retained.cutFiles.length > 0) {
    const cuts = retained.cutFiles.map((f) => `${f.path} (${f.shown} of ${f.total})`).join(', ')
    notes.push(`(Per-file cap: these files show only some of their matches: ${cuts}.)`)
  }
  if (spill !== undefined) notes.push(`(${spillSentence(spill, 'Full grep result')})`)
  if (incomplete.length > 0) notes.push(incompleteNote(incomplete))
  if (binary.length > 0) notes.push(`(Binary file${binary.length === 1 ? '' : 's'} matched, lines not shown: ${binary.join(', ')}.)`)
  if (binaryStopped.length > 0) {
    notes.push(`(rg stopped at binary content in ${binaryStopped.join(', ')}, so matches after it are missing.)`)
  }
  // The seam hands over decoded text, so a literal U+FFFD in a file is counted too; the note says so.
  if (lossy > 0) notes.push(`(${lossy} matched line${lossy === 1 ? '' : 's'} or path${lossy === 1 ? '' : 's'} contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)`)
  return notes
}

/** The model-facing page. */
export function formatGrepPage(retained: RetainedGrep, notes: readonly string[]): string {
  const head =
    retained.total === 0
      ? 'No matches found'
      : `Found ${retained.truncated ? `${retained.kept} of ${retained.total}` : retained.total} match${retained.total === 1 ? '' : 'es'}`
  return [retained.total === 0 ? head : `${head}\n\n${formatGroups(retained.files)}`, ...notes].join('\n\n')
}
