// A long line's window: for the cut lines a page shows, the part around the first match instead of the head.
import { isUtf8 } from 'node:buffer'
import path from 'node:path'
import type { ToolExecContext } from '@dsh/core'
import { SearchError } from '../../errors.js'
import { escapeLineControls } from '../escape-controls.js'
import type { SearchContext } from '../context.js'
import { runSearchCommand } from '../run.js'
import { LOOKUP } from '../probe/script.js'
import { rgCommand } from '../rg-command.js'
import { shellCommand } from '../shell-quote.js'
import type { ShownFile, ShownMatches } from './matches.js'
import { CONTEXT, CUT, ESCAPED, MARK, markOf, WINDOW } from './records.js'

/** How the first search ran, as far as a window needs: the same pattern, read the same way. */
export interface WindowSearch {
  rg: string
  pattern: string
  /** rg flags that change what the pattern matches (`--ignore-case`, `--multiline`). @default [] */
  patternFlags?: readonly string[]
  /** The pattern may span lines (`--multiline`): a line after a matched one may only continue its match. @default false */
  multiline?: boolean
  /** The absolute directory the paths rg printed are relative to. */
  base: string
  maxLineBytes: number
}

/** One record a page shows, and the file it is in. */
export interface PageRecord {
  file: ShownFile
  record: number
}

/** A cut line to fetch a window for: its file's index in the script, its line number and record. */
interface Wanted {
  file: number
  line: number
  record: number
}

/** Where one window's bytes came from: rg's first-match column and the line's offset, and the window's own offset. */
export interface FetchedWindow {
  column: number
  lineOffset: number
  start: number
  bytes: Buffer
}

const LF = 0x0a
const CR = 0x0d
/**
 * Windows fetched for one page at most. Each costs an `od` process (a few milliseconds), and a page
 * whose budgets let it show thousands of cut lines (a tiny `grepMaxLineBytes`) would otherwise spawn
 * thousands; the default page holds about ten lines cut at 2000 bytes. Past it, a cut line shows its
 * head, as before.
 */
export const MAX_WINDOWS = 25
/** How long the window fetch may run, at most: it re-reads only the files of cut lines on the page. */
export const WINDOW_TIMEOUT_MS = 5_000

/**
 * Replaces the head of every cut matched line among `shown` with a window around the line's first
 * match (docs/design.md#a-long-line-shows-its-first-match), with one script through the bash seam:
 * per file, rg prints each wanted line's first-match column and byte offset (its text cut to nothing),
 * and `od` prints `maxLineBytes` bytes as hex from a quarter of them before the match.
 * Only lines whose match lies past that quarter change; a line that cannot be windowed keeps its head,
 * so a failed or odd fetch costs nothing but the window. Returns true when some record changed.
 */
export async function showWindows(
  ctx: SearchContext,
  exec: ToolExecContext,
  matches: ShownMatches,
  shown: readonly PageRecord[],
  search: WindowSearch,
): Promise<boolean> {
  const files = new Map<string, number>()
  const wanted: Wanted[] = []
  for (const { file, record } of shown) {
    if (wanted.length === MAX_WINDOWS) break
    const flags = matches.bytes[markOf(matches.bytes, record)]!
    // A file without a source: rg printed it under two names, or with bytes replaced, so no name opens it.
    if ((flags & (CUT | CONTEXT | WINDOW)) !== CUT || file.source === undefined) continue
    const absolute = path.resolve(search.base, file.source)
    let index = files.get(absolute)
    if (index === undefined) files.set(absolute, (index = files.size))
    wanted.push({ file: index, line: lineOf(matches, record), record })
  }
  if (wanted.length === 0) return false
  const chunks: Buffer[] = []
  try {
    await runSearchCommand(ctx, exec, {
      command: buildWindowCommand([...files.keys()], wanted, search),
      narrow: 'pattern or path',
      stdoutSink: (chunk) => chunks.push(Buffer.from(chunk)),
      // The search has already taken its share of the call's time: a slow fetch must not spend the
      // rest and time the whole call out. Past this, the lines keep their heads.
      timeoutMs: WINDOW_TIMEOUT_MS,
    })
  } catch (error) {
    // An abort ends the call; a failed run (timeout, overflow, a missing tool) leaves the heads rg printed.
    if (!(error instanceof SearchError) || exec.signal.aborted) throw error
    return false
  }
  const fetched = parseWindowOutput(Buffer.concat(chunks).toString('latin1'))
  let changed = false
  for (const { file, line, record } of wanted) {
    const window = fetched.get(`${file}:${line}`)
    if (window === undefined) continue
    if (search.multiline === true && fetched.has(`${file}:${line - 1}`)) continue
    changed = applyWindow(matches, record, window, search.maxLineBytes) || changed
  }
  return changed
}

/** A record's line number, read from its digits (a window is never asked for an odd one: rg prints none). */
function lineOf(matches: ShownMatches, record: number): number {
  return Number(matches.bytes.toString('latin1', record + 1, markOf(matches.bytes, record)))
}

/**
 * The window script: per file, rg's wanted lines (and, for a multiline pattern, the line before each)
 * as `line:column:offset:`, and for each a `W file line column offset start` line and the window's
 * bytes as `od` hex. `--text` and `--encoding=none` make rg read the bytes `tail` reads, NUL or not.
 */
export function buildWindowCommand(files: readonly string[], wanted: readonly Wanted[], search: WindowSearch): string {
  const lead = Math.floor(search.maxLineBytes / 4)
  const script = files
    .map((file, index) => {
      const lines = new Set<number>()
      for (const want of wanted) {
        if (want.file !== index) continue
        lines.add(want.line)
        if (search.multiline === true && want.line > 1) lines.add(want.line - 1)
      }
      const rg = rgCommand({
        rg: search.rg,
        flags: [
          '--no-filename',
          '--line-number',
          '--column',
          '--byte-offset',
          '--max-columns=1',
          '--color=never',
          '--text',
          '--encoding=none',
          ...(search.patternFlags ?? []),
        ],
        pattern: search.pattern,
        paths: [file],
      })
      const only = `"$dsh_grep" ${shellCommand(['-E', `^(${[...lines].join('|')}):`])}`
      return [
        `${rg} | ${only} | while IFS=: read -r n c o r; do`,
        `s=$((o + c - 1 - ${lead})); [ "$s" -ge "$o" ] || s=$o; echo "W ${index} $n $c $o $s"`,
        `"$dsh_od" -An -v -tx1 -j "$s" -N ${search.maxLineBytes} -- ${shellCommand([file])}; done`,
      ].join('\n')
    })
    .join('\n')
  // grep and od by absolute path, as the probes look programs up: a `.` PATH entry is the searched tree.
  return [LOOKUP, 'dsh_lookup grep || exit 127; dsh_grep=$dsh_path', 'dsh_lookup od || exit 127; dsh_od=$dsh_path', script].join('\n')
}

/** The windows the script printed, by `file:line`; a malformed block is skipped. */
export function parseWindowOutput(text: string): Map<string, FetchedWindow> {
  const windows = new Map<string, FetchedWindow>()
  for (const block of text.split(/^W /m).slice(1)) {
    const newline = block.indexOf('\n')
    const head = /^(\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(newline === -1 ? block : block.slice(0, newline))
    if (head === null) continue
    const hex = newline === -1 ? '' : block.slice(newline + 1).replace(/\s+/g, '')
    if (!/^(?:[0-9a-f]{2})*$/.test(hex)) continue
    windows.set(`${head[1]}:${head[2]}`, {
      column: Number(head[3]),
      lineOffset: Number(head[4]),
      start: Number(head[5]),
      bytes: Buffer.from(hex, 'hex'),
    })
  }
  return windows
}

/**
 * Shows `window` for `record`, when it holds the match inside the line and the match lies past the
 * head's first quarter: from the first whole character, to the line's end or the last whole
 * character, its CR before the newline dropped and its control characters escaped. The escaped and
 * replaced-byte counts follow the line now shown (its path, which has a source, holds no replaced
 * byte). Returns true when the record changed.
 */
export function applyWindow(matches: ShownMatches, record: number, window: FetchedWindow, maxLineBytes: number): boolean {
  const { column, lineOffset, start: offset, bytes } = window
  // The match's offset in the window bytes.
  const match = lineOffset + column - 1 - offset
  if (column - 1 <= Math.floor(maxLineBytes / 4) || offset < lineOffset || match < 0 || match >= bytes.length) return false
  // A newline before the match: the file changed since rg read it, or the match is not on this line.
  if (bytes.subarray(0, match).includes(LF)) return false
  let start = 0
  while (start < 3 && start < match && (bytes[start]! & 0xc0) === 0x80) start += 1
  const newline = bytes.indexOf(LF, match)
  // A read cut at the budget may end inside a character; one that ended at the file's end did not.
  let end = newline !== -1 ? newline : bytes.length < maxLineBytes ? bytes.length : wholeCharacters(bytes)
  if (newline !== -1 && end > start && bytes[end - 1] === CR) end -= 1
  const shown = bytes.toString('utf8', start, end)
  const text = escapeLineControls(shown)
  // Decoding put U+FFFD in exactly when the bytes are not valid UTF-8; a U+FFFD they hold is the file's.
  const replaced = !isUtf8(bytes.subarray(start, end))
  const { records } = matches
  const mark = markOf(matches.bytes, record)
  const flags = matches.bytes[mark]!
  matches.escaped += (text !== shown ? 1 : 0) - ((flags & ESCAPED) !== 0 ? 1 : 0)
  matches.lossy += (replaced ? 1 : 0) - (records.replacedLines.has(record) ? 1 : 0)
  if (replaced) records.replacedLines.add(record)
  else records.replacedLines.delete(record)
  records.escapedLines.delete(record)
  matches.bytes[mark] = MARK | ((flags & ~MARK & ~ESCAPED) | WINDOW)
  records.windows.set(record, { text, from: offset - lineOffset + start + 1, to: offset - lineOffset + end })
  return true
}

/** Where `bytes` end without the character the read may have split: at the last character's start when it is incomplete. */
function wholeCharacters(bytes: Buffer): number {
  let last = bytes.length - 1
  while (last > 0 && bytes.length - last < 4 && (bytes[last]! & 0xc0) === 0x80) last -= 1
  const lead = bytes[last]!
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return last + size > bytes.length ? last : bytes.length
}
