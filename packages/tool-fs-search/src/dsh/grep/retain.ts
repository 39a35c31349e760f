// Retaining a grep page once, within its count, byte and per-file budgets.
import { nextRecord, type ShownMatches } from '../../engine/grep/matches.js'
import { rowBytes, type ShownGroup } from '../../engine/grep/rows.js'

/** A file whose matches the per-file cap cut from the page. */
export interface CutFile {
  path: string
  shown: number
  total: number
}

/** The one retention outcome the page text, the spill and any UI projection all read, so they cannot disagree. */
export interface RetainedGrep {
  matches: ShownMatches
  /** The files shown, in order, each with how many of its first matches. */
  groups: ShownGroup[]
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

/**
 * Retains the page once, with every budget (docs/design.md#bytes-not-only-counts). When the page
 * cannot hold everything, no file keeps more than `maxPerFile` (when several files matched); then the
 * head is kept within the count and byte caps. Whether everything fits counts a file's header once;
 * the head is then measured charging every match a header, a bound that never lets the page pass its
 * budget (and can cut a result that would just have fitted).
 */
export function retainGrepMatches(matches: ShownMatches, budget: GrepBudget): RetainedGrep {
  const { files, total } = matches
  const header = (file: number): number => Buffer.byteLength(files[file]!.path) + 2
  const capPerFile =
    (matches.fileCount ?? files.length) > 1 && !(total <= budget.maxMatches && fitsInBytes(matches, header, budget.maxBytes))
  const perFile = capPerFile ? budget.maxPerFile : Number.POSITIVE_INFINITY
  const groups: ShownGroup[] = []
  let room = budget.maxMatches
  let bytes = 0
  let kept = 0
  fill: for (let file = 0; file < files.length && room > 0; file += 1) {
    const candidates = Math.min(files[file]!.size, perFile)
    const opens = header(file)
    let count = 0
    for (let record = -1; count < candidates && room > 0; count += 1) {
      record = nextRecord(matches, files[file]!, count, record)
      bytes += rowBytes(matches, record) + 1 + opens
      // At least one match, so a page is never empty.
      if (bytes > budget.maxBytes && kept + count > 0) {
        if (count > 0) groups.push({ file, count })
        kept += count
        break fill
      }
      room -= 1
    }
    groups.push({ file, count })
    kept += count
  }
  const shown = new Map(groups.map((group) => [group.file, group.count]))
  const cutFiles = capPerFile
    ? files.flatMap((file, index) =>
        file.size > budget.maxPerFile ? [{ path: file.path, shown: shown.get(index) ?? 0, total: file.size }] : [],
      )
    : []
  return { matches, groups, kept, total, truncated: kept < total, cutFiles }
}

/** Every match, uncapped: the complete result a capped page's spill holds. */
export function retainEveryMatch(matches: ShownMatches): RetainedGrep {
  const groups = matches.files.map((file, index) => ({ file: index, count: file.size }))
  return { matches, groups, kept: matches.total, total: matches.total, truncated: false, cutFiles: [] }
}

/** Whether every match fits in `maxBytes`, a header per file; stops counting as soon as one does not. */
function fitsInBytes(matches: ShownMatches, header: (file: number) => number, maxBytes: number): boolean {
  let bytes = 0
  for (let file = 0; file < matches.files.length; file += 1) {
    bytes += header(file)
    for (let i = 0, record = -1; i < matches.files[file]!.size; i += 1) {
      record = nextRecord(matches, matches.files[file]!, i, record)
      bytes += rowBytes(matches, record) + 1
      if (bytes > maxBytes) return false
    }
  }
  return true
}
