// The grep pipeline as it was before it parsed bytes: rg's output decoded whole, one object per match,
// then shown, sorted, retained and formatted as strings. Kept as the oracle that the byte pipeline must
// match output for output (tests/dsh/grep/equivalence.spec.ts). One change since: it tells bytes replaced
// by U+FFFD from a U+FFFD the output held, by decoding the output a second time with each literal
// U+FFFD turned into U+E000 first (`markLiterals`), so only a replaced byte still reads as U+FFFD. And
// one more: a line that ends in rg's preview marker is cut only when the text before the marker fills
// `maxLineBytes`, as rg's previews do; a shorter one is the file's own text, shown whole. Names and
// lines are shown by tests/reference-display.ts, and footers written by tests/reference-footers.ts, never by
// the product's display helpers or footer text.
import path from 'node:path'
import { ItemRetainer, TextRetainer } from '@dsh/core'
import { SearchError } from '../../../src/errors.js'
import type { SearchGaps } from '../../../src/engine/exit-2.js'
import type { SpillOutcome } from '../../../src/engine/spill.js'
import { referenceDisplayFrom, referenceEscapeLine } from '../../reference-display.js'
import {
  referenceIncompleteNote as incompleteNote,
  referenceNameSome as nameSome,
  referenceSpillSentence as spillSentence,
} from '../../reference-footers.js'

interface Match {
  path: string
  lineNumber: number
  line: string
  lineCut: boolean
  /** Its line was shown escaped. */
  escaped?: boolean
  /** The path rg printed, before it is shown. */
  source?: string
  /** The path and the line as decoded with literal U+FFFDs marked: where they hold U+FFFD, bytes were replaced. */
  marked?: { path: string; line: string }
  /** The line as shown holds a replaced byte. */
  lineReplaced?: boolean
  /** The columns a window around the first match shows. */
  window?: { from: number; to: number }
}

/** The budgets and the call the reference formats for. */
export interface ReferenceCall {
  workdir: string
  target: string
  maxLineBytes: number
  maxMatches: number
  maxBytes: number
  maxPerFile: number
  incomplete: SearchGaps
  stderrCut: boolean
  /** The window script's stdout (latin1), when the call ran one. */
  windows?: string
}

/** What the reference made of one output: the page for a spill outcome, the spilled text when capped, the matches. */
export interface ReferenceResult {
  page: (spill: SpillOutcome | undefined) => string
  spill: string | undefined
  total: number
  matches: Pick<Match, 'path' | 'lineNumber' | 'line' | 'lineCut'>[]
}

/**
 * `bytes` with each U+FFFD (EF BF BD) written as U+E000 (EE 80 80): the same length, and a decoder
 * reads both the same way (a lead byte with two continuation bytes, neither part of what comes before),
 * so decoding it gives the same text with only the U+FFFDs that stand for bad bytes left.
 */
function markLiterals(bytes: Buffer): Buffer {
  const marked = Buffer.from(bytes)
  for (let at = marked.indexOf('\ufffd'); at !== -1; at = marked.indexOf('\ufffd', at + 3)) marked.set([0xee, 0x80, 0x80], at)
  return marked
}

/** The old pipeline, from the script's stdout to the page and the spill text. Throws as it did. */
export function referenceGrep(raw: Buffer, call: ReferenceCall): ReferenceResult {
  const stdout = raw.toString()
  let searched: 'directory' | 'file'
  let base: string
  let body: string
  if (stdout.startsWith('D\0')) [searched, base, body] = ['directory', path.resolve(call.workdir, call.target), stdout.slice(2)]
  else if (stdout.startsWith('F\0')) [searched, base, body] = ['file', call.workdir, stdout.slice(2)]
  else {
    throw new SearchError(
      'SEARCH_FAILED',
      `grep could not parse its script output near ${JSON.stringify(stdout.slice(0, 80))}; the search result cannot be trusted.`,
    )
  }
  void searched
  const output = parseRgOutput(body, call.maxLineBytes)
  const marked = parseRgOutput(markLiterals(raw).toString().slice(2), call.maxLineBytes)
  output.matches.forEach((match, i) => (match.marked = marked.matches[i]!))
  const shown = referenceDisplayFrom(call.workdir, base)
  const { matches, escaped, lossy } = showMatches(output.matches, shown, call.maxLineBytes)
  let retained = retainGrepMatches(matches, call)
  const counts = { escaped, lossy }
  if (call.windows !== undefined && applyWindows(retained, base, call.windows, call.maxLineBytes, counts)) {
    retained = retainGrepMatches(matches, call)
  }
  const notes = {
    incomplete: call.incomplete,
    stderrCut: call.stderrCut,
    binary: output.binaryFiles.map(shown),
    binaryStopped: output.binaryStopped.map(shown),
    lossy: counts.lossy,
    escaped: counts.escaped,
  }
  const spill = retained.truncated ? `${formatGrepPage(retainEveryMatch(matches), undefined, notes)}\n` : undefined
  const listed = matches.map(({ path, lineNumber, line, lineCut, window }) => ({
    path,
    lineNumber,
    line,
    lineCut,
    ...(window === undefined ? {} : { lineFrom: window.from }),
  }))
  return { page: (outcome) => formatGrepPage(retained, outcome, notes), spill, total: matches.length, matches: listed }
}

const BINARY_MATCHES = /^(.*): binary file matches \(found "\\0" byte around offset \d+\)$/
const BINARY_STOPPED = /^(.*): WARNING: stopped searching binary file after match \(found "\\0" byte around offset \d+\)$/
const PREVIEW_MARKER = / \[\.\.\. (?:omitted end of long line|\d+ more match(?:es)?)\]$/

function parseRgOutput(stdout: string, maxLineBytes: number): { matches: Match[]; binaryFiles: string[]; binaryStopped: string[] } {
  const matches: Match[] = []
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
    const found = PREVIEW_MARKER.exec(text)
    const marker = found !== null && Buffer.byteLength(text.slice(0, found.index)) >= maxLineBytes ? found : null
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

function showMatches(raw: readonly Match[], shown: (file: string) => string, maxLineBytes: number) {
  const preview = new TextRetainer({ maxBytes: maxLineBytes })
  const displayed = new Map<string, string>()
  const byFile = new Map<string, Match[]>()
  let escaped = 0
  let lossy = 0
  for (const match of raw) {
    let file = displayed.get(match.path)
    if (file === undefined) displayed.set(match.path, (file = shown(match.path)))
    match.source = match.path
    match.path = file
    if (match.line.length * 3 > maxLineBytes) {
      const kept = preview.retain(match.line)
      match.line = kept.text
      match.lineCut ||= kept.truncated
    }
    // The marked line cuts where the line does: U+E000 takes the bytes U+FFFD takes.
    match.lineReplaced = preview.retain(match.marked!.line).text.includes('\ufffd')
    const line = referenceEscapeLine(match.line)
    if (line !== match.line) {
      match.line = line
      match.escaped = true
      escaped += 1
    }
    if (match.lineReplaced || match.marked!.path.includes('\ufffd')) lossy += 1
    let group = byFile.get(file)
    if (group === undefined) byFile.set(file, (group = []))
    group.push(match)
  }
  const matches = [...byFile.keys()].sort().flatMap((file) => {
    const matches = byFile.get(file)!
    return matches.every((m, i) => i === 0 || matches[i - 1]!.lineNumber <= m.lineNumber)
      ? matches
      : matches.sort((a, b) => a.lineNumber - b.lineNumber)
  })
  return { matches, escaped, lossy }
}

interface Group {
  path: string
  matches: Match[]
}

interface Retained {
  files: Group[]
  kept: number
  total: number
  truncated: boolean
  cutFiles: { path: string; shown: number; total: number }[]
}

function formatRow(match: Match): string {
  const cut = match.window !== undefined ? ` (cut; columns ${match.window.from}-${match.window.to})` : match.lineCut ? ' (cut)' : ''
  return `Line ${match.lineNumber}${cut}: ${match.line}`
}

/**
 * The windows of the page's cut lines, from the window script's `W file line column offset start`
 * blocks of hex (files numbered in the order the page first shows them), applied as strings: a window
 * shows from its first whole character to the line's end or its last whole character.
 */
function applyWindows(
  retained: Retained,
  base: string,
  stdout: string,
  maxLineBytes: number,
  counts: { escaped: number; lossy: number },
): boolean {
  const blocks = new Map<string, { column: number; offset: number; start: number; bytes: Buffer }>()
  for (const block of stdout.split(/^W /m).slice(1)) {
    const [head, ...hex] = block.split('\n')
    const [file, line, column, offset, start] = head!.split(' ').map(Number)
    blocks.set(`${file}:${line}`, {
      column: column!,
      offset: offset!,
      start: start!,
      bytes: Buffer.from(hex.join('').replace(/ /g, ''), 'hex'),
    })
  }
  // A shown file rg printed under two names, or under one with bytes replaced, has no name to open it by.
  const opens = new Map<string, string | undefined>()
  for (const match of retained.files.flatMap((group) => group.matches)) {
    const own = match.marked!.path.includes('\ufffd') ? undefined : match.source
    opens.set(match.path, opens.has(match.path) && opens.get(match.path) !== own ? undefined : own)
  }
  const files: string[] = []
  let changed = false
  let asked = 0
  for (const match of retained.files.flatMap((group) => group.matches)) {
    const file = path.resolve(base, match.source!)
    // The first 25 cut lines of the page are asked for.
    if (!match.lineCut || opens.get(match.path) === undefined || asked === 25) continue
    asked += 1
    if (!files.includes(file)) files.push(file)
    const block = blocks.get(`${files.indexOf(file)}:${match.lineNumber}`)
    if (block === undefined || block.column - 1 <= Math.floor(maxLineBytes / 4)) continue
    const at = block.offset + block.column - 1 - block.start
    if (at >= block.bytes.length || block.bytes.subarray(0, at).includes(0x0a)) continue
    let from = 0
    while (from < Math.min(3, at) && block.bytes[from]! >= 0x80 && block.bytes[from]! < 0xc0) from += 1
    let text = block.bytes.subarray(from)
    const newline = text.indexOf(0x0a)
    if (newline !== -1) text = text.subarray(0, newline > 0 && text[newline - 1] === 0x0d ? newline - 1 : newline)
    else if (block.bytes.length === maxLineBytes) {
      // The read may end inside a character: drop a character whose bytes do not all fit.
      for (let back = 1; back <= Math.min(4, text.length); back += 1) {
        const byte = text[text.length - back]!
        if (byte >= 0x80 && byte < 0xc0) continue
        const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
        if (size > back) text = text.subarray(0, text.length - back)
        break
      }
    }
    const shown = text.toString('utf8')
    const escapedLine = referenceEscapeLine(shown)
    counts.escaped += (escapedLine !== shown ? 1 : 0) - (match.escaped === true ? 1 : 0)
    const replaced = markLiterals(text).toString('utf8').includes('\ufffd')
    counts.lossy += (replaced ? 1 : 0) - (match.lineReplaced === true ? 1 : 0)
    match.lineReplaced = replaced
    match.line = escapedLine
    match.window = { from: block.start - block.offset + from + 1, to: block.start - block.offset + from + text.length }
    changed = true
  }
  return changed
}

function matchCost(match: Match, opensGroup: boolean): number {
  const row = Buffer.byteLength(formatRow(match)) + 1
  return opensGroup ? row + Buffer.byteLength(match.path) + 2 : row
}

function groupByFile(matches: readonly Match[]): Group[] {
  const groups: Group[] = []
  for (const m of matches) {
    const last = groups.at(-1)
    if (last?.path === m.path) last.matches.push(m)
    else groups.push({ path: m.path, matches: [m] })
  }
  return groups
}

function retainGrepMatches(matches: readonly Match[], budget: { maxMatches: number; maxBytes: number; maxPerFile: number }): Retained {
  let bytes = 0
  let fitsWhole = matches.length <= budget.maxMatches
  for (let i = 0; fitsWhole && i < matches.length; i += 1) {
    bytes += matchCost(matches[i]!, i === 0 || matches[i - 1]!.path !== matches[i]!.path)
    if (bytes > budget.maxBytes) fitsWhole = false
  }
  const perFile = new Map<string, number>()
  if (!fitsWhole) for (const m of matches) perFile.set(m.path, (perFile.get(m.path) ?? 0) + 1)
  const capPerFile = perFile.size > 1
  const seen = new Map<string, number>()
  const candidates = capPerFile
    ? matches.filter((m) => {
        const n = (seen.get(m.path) ?? 0) + 1
        seen.set(m.path, n)
        return n <= budget.maxPerFile
      })
    : matches
  const fits = countWithinBytes(candidates, budget.maxBytes, (m) => matchCost(m, true))
  const retainer = new ItemRetainer<Match>({ maxItems: Math.min(budget.maxMatches, fits) })
  for (const m of candidates) retainer.push(m)
  const kept = retainer.result().items
  const shown = new Map<string, number>()
  for (const m of kept) shown.set(m.path, (shown.get(m.path) ?? 0) + 1)
  const cutFiles = capPerFile
    ? [...perFile].filter(([, total]) => total > budget.maxPerFile).map(([path, total]) => ({ path, shown: shown.get(path) ?? 0, total }))
    : []
  return { files: groupByFile(kept), kept: kept.length, total: matches.length, truncated: kept.length < matches.length, cutFiles }
}

function countWithinBytes<T>(items: readonly T[], maxBytes: number, cost: (item: T) => number): number {
  let bytes = 0
  let count = 0
  for (const item of items) {
    bytes += cost(item)
    if (bytes > maxBytes && count > 0) break
    count += 1
  }
  return count
}

function retainEveryMatch(matches: readonly Match[]): Retained {
  return { files: groupByFile(matches), kept: matches.length, total: matches.length, truncated: false, cutFiles: [] }
}

interface Notes {
  incomplete: SearchGaps
  stderrCut: boolean
  binary: readonly string[]
  binaryStopped: readonly string[]
  lossy: number
  escaped: number
}

function footers(retained: Retained, spill: SpillOutcome | undefined, notes: Notes): string[] {
  const lines: string[] = []
  const cut = retained.cutFiles.filter((f) => f.shown > 0)
  if (cut.length > 0) {
    lines.push(
      `(Per-file cap: these files show only some of their matches: ${nameSome(cut.map((f) => `${f.path} (${f.shown} of ${f.total})`))}.)`,
    )
  }
  if (spill !== undefined) lines.push(`(${spillSentence(spill, 'Full grep result')})`)
  const incomplete = incompleteNote(notes.incomplete, notes.stderrCut)
  if (incomplete !== undefined) lines.push(incomplete)
  const { binary, binaryStopped, lossy, escaped } = notes
  if (binary.length > 0) lines.push(`(Binary file${binary.length === 1 ? '' : 's'} matched, lines not shown: ${nameSome(binary)}.)`)
  if (binaryStopped.length > 0) {
    lines.push(`(rg stopped at binary content in ${nameSome(binaryStopped)}, so matches after it are missing.)`)
  }
  if (lossy > 0)
    lines.push(
      `(${lossy} matched line${lossy === 1 ? '' : 's'} or path${lossy === 1 ? ' contains' : 's contain'} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`,
    )
  if (escaped > 0) {
    lines.push(
      `(${escaped} matched line${escaped === 1 ? ' contains' : 's contain'} control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)`,
    )
  }
  return lines
}

function formatGrepPage(retained: Retained, spill: SpillOutcome | undefined, notes: Notes): string {
  let head: string
  if (retained.total > 0) {
    const count = retained.truncated ? `${retained.kept} of ${retained.total}` : `${retained.total}`
    const groups = retained.files.map((group) => [group.path, ...group.matches.map(formatRow)].join('\n')).join('\n\n')
    head = `Found ${count} match${retained.total === 1 ? '' : 'es'}\n\n${groups}`
  } else {
    head = notes.binary.length > 0 ? 'No matching lines to show' : 'No matches found'
  }
  return [head, ...footers(retained, spill, notes)].join('\n\n')
}
