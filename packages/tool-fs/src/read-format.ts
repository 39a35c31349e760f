// The read tool's page: numbered lines like `cat -n`, then notes that say what was left out and how to get it.
import type { ReadLinesResult } from '@dsh/core'

/** One read call's window and the budgets that shaped it. */
export interface ReadPage {
  path: string
  offset: number
  result: ReadLinesResult
  maxLineBytes: number
  maxBytes: number
}

// Controls (a newline would split the message, ESC reach a terminal), format characters (U+202E shows
// the rest backwards, a zero-width space hides a difference) and the line and paragraph separators
// (docs/design.md#invisible-characters-are-shown). By category: a message quotes one path, and the
// fixed list the search pages keep for their byte checks lives in a package read does not import.
const ESCAPED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u
// JSON.stringify escapes C0 but writes DEL, C1, format characters and separators as they are.
const PAST_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu

/** `\u` and four hex digits for each UTF-16 unit of `char`, as JSON writes a character it escapes. */
function escapeUnits(char: string): string {
  let escaped = ''
  for (let unit = 0; unit < char.length; unit += 1) escaped += `\\u${char.charCodeAt(unit).toString(16).padStart(4, '0')}`
  return escaped
}

/** A path as a message shows it: JSON-quoted with escapes when it holds a control or format character such as a newline or U+202E. */
export function shownPath(path: string): string {
  return ESCAPED.test(path) ? JSON.stringify(path).replace(PAST_JSON, escapeUnits) : path
}

/** The model-facing text of a page with at least one line. */
export function formatReadPage(page: ReadPage): string {
  const { result, maxLineBytes } = page
  const body = result.lines.map((line) => {
    const marker = line.cut ? ` … [line cut at ${maxLineBytes} bytes]` : ''
    return `${String(line.number).padStart(6)}\t${line.text}${marker}`
  })
  const notes = [
    ...(result.lossy ? ['(Some bytes in these lines are not valid UTF-8; they are shown as U+FFFD.)'] : []),
    ...pagingNote(page),
  ]
  return notes.length === 0 ? body.join('\n') : `${body.join('\n')}\n\n${notes.join('\n')}`
}

/** What follows the page: where to read on, or where the file ended when the page began past line 1. */
function pagingNote({ path, offset, result, maxBytes }: ReadPage): string[] {
  const last = result.lines.at(-1)!
  const range = `lines ${result.lines[0]!.number}–${last.number} of ${shownPath(path)}`
  const next = `To read on, call read with offset=${last.number + 1}.`
  switch (result.stoppedBy) {
    case 'end':
      return offset > 1 ? [`(Showing ${range}, the end of the file.)`] : []
    case 'bytes':
      return [`(Showing ${range}: this page reached its ${maxBytes}-byte limit, and the file continues. ${next})`]
    case 'limit':
      // The provider does not look for the end of a cut last line, so it cannot say more lines follow.
      return [`(Showing ${range}; ${last.cut ? 'its last line is cut, and more lines may follow' : 'the file continues'}. ${next})`]
  }
}
