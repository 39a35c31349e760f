// The glob script's output: `mtime TAB name NUL` records, parsed and ordered newest first.
import { SearchError } from '../errors.js'

/** One listed file with its modification time as whole seconds and nanoseconds. */
export interface ListedFile {
  name: string
  seconds: number
  nanos: number
}

// find prints ten fractional digits, stat nine; nanoseconds are the first nine.
const MTIME = /^(-?)(\d+)(?:\.(\d{1,9})\d?)?$/

/**
 * Parses `mtime TAB name NUL` records; a record that does not parse fails the search. An mtime before
 * 1970 is negative, fraction and all (`-1.25` is 1.25 s before the epoch), so its nanoseconds are too.
 */
export function parseGlobListing(stdout: string): ListedFile[] {
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

/**
 * Newest modified first (docs/design.md#glob-lists-newest-first); ties by name, so identical calls
 * give identical pages (docs/design.md#deterministic-pages).
 */
export function sortNewestFirst(files: ListedFile[]): ListedFile[] {
  return files.sort((a, b) => b.seconds - a.seconds || b.nanos - a.nanos || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
