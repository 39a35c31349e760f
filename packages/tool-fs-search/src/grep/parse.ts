// Reading the grep script's output: where its paths are relative to, then rg's `--null` line records.
import path from 'node:path'
import { SearchError } from '../errors.js'

/** Whether rg searched inside a directory or one file, where its printed paths are relative to, and the rest of the output. */
export interface GrepOutput {
  searched: 'directory' | 'file'
  base: string
  body: string
}

/** Where the target was searched from, for the script's first record to be read against. */
export interface GrepTarget {
  /** The resolved working directory. */
  workdir: string
  /** The file or directory searched, as the model gave it. */
  target: string
}

/** Where the paths in rg's output are relative to, from the script's first record; the rest is rg's. */
export function splitGrepOutput(stdout: string, { workdir, target }: GrepTarget): GrepOutput {
  if (stdout.startsWith('D\0')) return { searched: 'directory', base: path.resolve(workdir, target), body: stdout.slice(2) }
  if (stdout.startsWith('F\0')) return { searched: 'file', base: workdir, body: stdout.slice(2) }
  throw new SearchError(
    'SEARCH_FAILED',
    `grep could not parse its script output near ${JSON.stringify(stdout.slice(0, 80))}; the search result cannot be trusted.`,
  )
}

/**
 * One matched line. Parsed from rg with its raw path and rg's preview; the tool then rewrites `path`
 * for display and cuts `line` to its budget in place, so a match is one object however many there are.
 */
export interface GrepMatch {
  path: string
  lineNumber: number
  /** The line, or rg's preview of it when it was longer than `--max-columns`. */
  line: string
  /** True when the line shown is shorter than the line in the file. */
  lineCut: boolean
}

/** Everything rg's `--null` line output says. */
export interface RgOutput {
  matches: GrepMatch[]
  /** Files rg named as binary instead of printing their lines (only for a file searched by name). */
  binaryFiles: string[]
  /** Files whose search rg stopped at binary content after a match: later matches in them are missing. */
  binaryStopped: string[]
}

// rg's notices about binary files: printed on stdout with ": " and no NUL
// (docs/design.md#one-bad-record-never-sinks-a-search). The first is for a file searched by name; the
// second when a NUL turns up after a match in a walked file.
const BINARY_MATCHES = /^(.*): binary file matches \(found "\\0" byte around offset \d+\)$/
const BINARY_STOPPED = /^(.*): WARNING: stopped searching binary file after match \(found "\\0" byte around offset \d+\)$/
// What --max-columns-preview appends to a cut line.
const PREVIEW_MARKER = / \[\.\.\. (?:omitted end of long line|\d+ more match(?:es)?)\]$/

/**
 * Parses `path NUL line-number : text NEWLINE` records. The path ends at the NUL, so a path with a
 * newline still parses; a record that does not parse fails the search rather than vanish.
 */
export function parseRgOutput(stdout: string): RgOutput {
  const matches: GrepMatch[] = []
  const binaryFiles: string[] = []
  const binaryStopped: string[] = []
  let pos = 0
  while (pos < stdout.length) {
    const newline = stdout.indexOf('\n', pos)
    const lineEnd = newline === -1 ? stdout.length : newline
    const nul = stdout.indexOf('\0', pos)
    if (nul === -1 || nul > lineEnd) {
      const line = stdout.slice(pos, lineEnd)
      const notice = BINARY_MATCHES.exec(line) ?? BINARY_STOPPED.exec(line)
      if (notice !== null) {
        ;(notice[0].includes(': WARNING: ') ? binaryStopped : binaryFiles).push(notice[1]!)
        pos = lineEnd + 1
        continue
      }
      if (nul === -1) throw malformed(stdout, pos)
    }
    let digitsEnd = nul + 1
    while (isDigit(stdout.charCodeAt(digitsEnd))) digitsEnd += 1
    if (digitsEnd === nul + 1 || stdout[digitsEnd] !== ':') throw malformed(stdout, pos)
    const textEnd = stdout.indexOf('\n', digitsEnd)
    const end = textEnd === -1 ? stdout.length : textEnd
    let text = stdout.slice(digitsEnd + 1, end)
    if (text.endsWith('\r')) text = text.slice(0, -1)
    const marker = PREVIEW_MARKER.exec(text)
    if (marker !== null) text = text.slice(0, marker.index)
    matches.push({
      path: stdout.slice(pos, nul),
      lineNumber: Number(stdout.slice(nul + 1, digitsEnd)),
      line: text,
      lineCut: marker !== null,
    })
    pos = end + 1
  }
  return { matches, binaryFiles, binaryStopped }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

function malformed(stdout: string, pos: number): SearchError {
  const excerpt = JSON.stringify(stdout.slice(pos, pos + 80))
  return new SearchError('SEARCH_FAILED', `grep could not parse rg's output near ${excerpt}; the search result cannot be trusted.`)
}
