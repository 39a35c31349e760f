// The glob listing as it was before it parsed bytes: the output decoded whole, an object per file, a
// comparator sort, and every path shown and joined as strings. Kept as the oracle that the byte
// listing must match output for output (tests/dsh/glob/equivalence.spec.ts). Its lossy count is taken as
// grep's reference pipeline takes it: from the output decoded a second time with every literal U+FFFD
// turned into U+E000 first (`markLiterals`), so only a name with a replaced byte still holds U+FFFD, and
// what the names are shown from (the call's own text) never counts. Names are shown by
// tests/reference-display.ts and its page written by `referenceGlobPage`, never by the product's display
// helpers or footer text.
import path from 'node:path'
import { SearchError } from '../../../src/errors.js'
import type { SpillOutcome } from '../../../src/engine/spill.js'
import { referenceDisplayFrom } from '../../reference-display.js'
import { referenceSpillSentence } from '../../reference-footers.js'

interface ListedFile {
  name: string
  seconds: number
  nanos: number
}

const MTIME = /^(-?)(\d+)(?:\.(\d{1,9})\d?)?$/

function parseGlobListing(stdout: string): ListedFile[] {
  const files: ListedFile[] = []
  for (let pos = 0; pos < stdout.length;) {
    const end = stdout.indexOf('\0', pos)
    const tab = stdout.indexOf('\t', pos)
    const time = end === -1 || tab === -1 || tab + 1 >= end ? null : MTIME.exec(stdout.slice(pos, tab))
    if (time === null) {
      throw new SearchError('SEARCH_FAILED', `glob could not parse the file listing near ${JSON.stringify(stdout.slice(pos, pos + 80))}`)
    }
    const sign = time[1] === '-' ? -1 : 1
    const nanos = Number((time[3] ?? '').padEnd(9, '0'))
    files.push({ name: stdout.slice(tab + 1, end), seconds: sign * Number(time[2]), nanos: sign * nanos })
    pos = end + 1
  }
  return files
}

function sortNewestFirst(files: ListedFile[]): ListedFile[] {
  return files.sort((a, b) => b.seconds - a.seconds || b.nanos - a.nanos || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * `bytes` with each U+FFFD (EF BF BD) written as U+E000 (EE 80 80): the same length, and a decoder
 * reads both the same way, so decoding it gives the same records with only the U+FFFDs that stand for
 * bad bytes left.
 */
function markLiterals(bytes: Buffer): Buffer {
  const marked = Buffer.from(bytes)
  for (let at = marked.indexOf('\ufffd'); at !== -1; at = marked.indexOf('\ufffd', at + 3)) marked.set([0xee, 0x80, 0x80], at)
  return marked
}

/** What the old listing made of one output: every path shown, the page's head, the lossy count, the spill text. */
export interface ReferenceListing {
  paths: string[]
  items: string[]
  truncated: boolean
  lossy: number
  spill: string | undefined
}

/** The old listing, from the script's stdout; throws as it did. */
export function referenceListing(
  output: Buffer,
  { workdir, root, maxResults, maxBytes }: { workdir: string; root: string; maxResults: number; maxBytes: number },
): ReferenceListing {
  const shown = referenceDisplayFrom(workdir, path.resolve(workdir, root))
  const paths = sortNewestFirst(parseGlobListing(output.toString())).map((file) => shown(file.name))
  // The same records in the same order: U+E000 takes the bytes U+FFFD takes, and neither is a TAB or NUL.
  const replaced = parseGlobListing(markLiterals(output).toString()).filter((file) => file.name.includes('\ufffd')).length
  let bytes = 0
  let fits = 0
  for (const shownPath of paths) {
    bytes += Buffer.byteLength(shownPath) + 1
    if (bytes > maxBytes && fits > 0) break
    fits += 1
  }
  const items = paths.slice(0, Math.min(maxResults, fits))
  const truncated = items.length < paths.length
  return {
    paths,
    items,
    truncated,
    lossy: replaced,
    spill: truncated ? `${paths.join('\n')}\n` : undefined,
  }
}

/** The page of a complete listing: its paths (or that there are none), where the rest went, and the replaced-bytes note. */
export function referenceGlobPage(want: ReferenceListing, spill: SpillOutcome | undefined): string {
  const total = want.paths.length
  const parts = [total === 0 ? 'No files found' : want.items.join('\n')]
  if (spill !== undefined) {
    parts.push(`(Showing ${want.items.length} of ${total} paths, newest first. ${referenceSpillSentence(spill, 'Full sorted result')})`)
  }
  if (want.lossy > 0) {
    parts.push(
      `(${want.lossy} ${want.lossy === 1 ? 'path contains' : 'paths contain'} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`,
    )
  }
  return parts.join('\n\n')
}
