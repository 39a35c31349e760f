// Colour on a terminal, as rg shows it: paths magenta, line numbers green, matched text bold red.
import type { ToolResultView } from '@dsh/core'
import type { CliIo } from './cli-io.js'

/** `--color`: `auto` colours only a terminal, and honours `NO_COLOR` and `TERM=dumb`. */
export type ColorWhen = 'auto' | 'always' | 'never'

/** The `--color` values, in the order usage and completions name them. */
export const COLOR_WHEN: readonly ColorWhen[] = ['auto', 'always', 'never']

/**
 * Whether stdout gets colour. `always` and `never` are the user's word for this call, so they win
 * over `NO_COLOR` (https://no-color.org: a command-line flag overrides it); `auto` colours a
 * terminal only, never a pipe or a file, and not when `NO_COLOR` is set non-empty or `TERM` is `dumb`
 * (as rg decides).
 */
export function colorEnabled(when: ColorWhen, terminal: CliIo['terminal']): boolean {
  if (when !== 'auto') return when === 'always'
  if (terminal?.isTTY !== true) return false
  const { NO_COLOR, TERM } = terminal.env
  return (NO_COLOR === undefined || NO_COLOR === '') && TERM !== 'dumb'
}

/** How each part of a record is written: plain, or wrapped in its colour. */
export interface Paint {
  path(text: string): string
  lineNumber(text: string): string
  /** A matched line, its matches highlighted. */
  line(text: string): string
}

/** Writes everything as it is. */
export const PLAIN: Paint = { path: (text) => text, lineNumber: (text) => text, line: (text) => text }

// rg's default colours (`rg --color=always`): path 35, line number 32, match bold 31.
const sgr = (code: string) => (text: string) => `\x1b[${code}m${text}\x1b[0m`
const magenta = sgr('35')
const green = sgr('32')
const boldRed = sgr('1;31')

/**
 * The terminal's paint for a search. Matched text is found again with `pattern` read as a JavaScript
 * regular expression (rg's syntax mostly is one; `ignoreCase` for `-i`): a pattern JavaScript cannot
 * read is not highlighted, while its paths and line numbers still are.
 */
export function terminalPaint(pattern: string | undefined, ignoreCase: boolean): Paint {
  const regex = patternRegExp(pattern, ignoreCase ? 'i' : '')
  return { path: magenta, lineNumber: green, line: (text) => (regex === undefined ? text : highlight(text, regex)) }
}

function patternRegExp(pattern: string | undefined, flags: string): RegExp | undefined {
  if (pattern === undefined || pattern === '') return undefined
  // Unicode mode first, as rg reads `.` as a character; some patterns parse only without it (`\-`).
  for (const mode of ['gu', 'g']) {
    try {
      return new RegExp(pattern, mode + flags)
    } catch {
      // Try the next reading.
    }
  }
  return undefined
}

/** `line` with each non-empty match wrapped; an empty match highlights nothing. */
function highlight(line: string, regex: RegExp): string {
  let out = ''
  let at = 0
  for (const match of line.matchAll(regex)) {
    if (match[0] === '') continue
    out += line.slice(at, match.index) + boldRed(match[0])
    at = match.index + match[0].length
  }
  return out + line.slice(at)
}

const MATCH_LINE = /^Line (\d+): (.*)$/

/**
 * A search page painted from its card view: a line that is one of the view's paths is a path, and in
 * a grep page the `Line N: text` rows under a path are matches. The view holds the page's own paths
 * and lines, cut and escaped as the page shows them, so nothing else on the page (the heading, the
 * footers, a note that quotes a path) is painted; a page without a search view is printed as it is.
 */
export function paintPage(content: string, view: ToolResultView | null, paint: Paint): string {
  if (view?.card !== 'search') return content
  const paths = new Set(view.shape === 'matches' ? view.files.map((file) => file.path) : view.paths)
  let inFile = false
  return content
    .split('\n')
    .map((row) => {
      if (paths.has(row)) {
        inFile = view.shape === 'matches'
        return paint.path(row)
      }
      const match = inFile ? MATCH_LINE.exec(row) : null
      if (match === null) {
        inFile = false
        return row
      }
      return `Line ${paint.lineNumber(match[1]!)}: ${paint.line(match[2]!)}`
    })
    .join('\n')
}
