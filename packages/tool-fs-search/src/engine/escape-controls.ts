// Characters shown as escapes, so a repository can neither drive a terminal, forge lines, nor hide or
// reorder what a reader sees (docs/design.md#invisible-characters-are-shown).

/**
 * The code points past ASCII that a page escapes, each range as its first and last: the C1 controls
 * (a terminal acts on them: U+009B is an 8-bit CSI), every format character (general category Cf:
 * the bidi controls that reorder a line, zero-width characters, the soft hyphen, U+FEFF, the tag
 * characters that spell ASCII invisibly) and the line and paragraph separators (Zl, Zp), which some
 * readers break a line at; as Unicode 17 has them. A fixed list rather than `\p{Cf}`, so a page does
 * not change with the Node that renders it and the byte checks below derive from the same list; a
 * test holds it to the categories of the Node running the tests.
 */
export const ESCAPED_RANGES: readonly (readonly [number, number])[] = [
  [0x80, 0x9f],
  [0xad, 0xad],
  [0x600, 0x605],
  [0x61c, 0x61c],
  [0x6dd, 0x6dd],
  [0x70f, 0x70f],
  [0x890, 0x891],
  [0x8e2, 0x8e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
]

const hex = (code: number): string => code.toString(16)
// The ranges as the body of a character class (`u` mode).
const WIDE = ESCAPED_RANGES.map(([first, last]) => (first === last ? `\\u{${hex(first)}}` : `\\u{${hex(first)}}-\\u{${hex(last)}}`)).join(
  '',
)
// C0 controls, DEL and the list: ESC opens a terminal sequence, CR returns the cursor over a line
// already shown, U+202E shows what follows backwards.
const NAME_ESCAPED = new RegExp(`[\\u0000-\\u001f\\u007f${WIDE}]`, 'u')
// The same without TAB: a tab in a matched line is indentation, and harmless.
const LINE_ESCAPED = new RegExp(`[\\u0000-\\u0008\\u000a-\\u001f\\u007f${WIDE}]`, 'u')
const LINE_ESCAPES = new RegExp(LINE_ESCAPED.source, 'gu')
// JSON.stringify escapes C0 but leaves DEL and everything in the list raw.
const PAST_JSON = new RegExp(`[\\u007f${WIDE}]`, 'gu')
// A lone surrogate cannot be encoded as UTF-8; JSON.stringify escapes it (`\ud800`).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/**
 * The JSON escape of one character: `\r`, `\n`, `\t`, `\b`, `\f`, else `\u001b` and the like, a
 * character past U+FFFF as its two UTF-16 units (`\udb40\udc41`), as JSON writes one.
 */
function escapeOne(char: string): string {
  if (char.charCodeAt(0) < 0x20) return JSON.stringify(char).slice(1, -1)
  let escaped = ''
  for (let unit = 0; unit < char.length; unit += 1) escaped += `\\u${char.charCodeAt(unit).toString(16).padStart(4, '0')}`
  return escaped
}

/** A name as shown: JSON-quoted, with every character a page escapes written as an escape, when it holds one or a lone surrogate. */
export function quoteName(name: string): string {
  return NAME_ESCAPED.test(name) || LONE_SURROGATE.test(name) ? JSON.stringify(name).replace(PAST_JSON, escapeOne) : name
}

/**
 * A matched line with its control and format characters but TAB written as JSON escapes (ESC as
 * `\u001b`, CR as `\r`, U+202E as `\u202e`), or the line itself when it has none. Not quoted: a
 * line's backslashes stay as they are, so the page's footer says when a line was escaped.
 */
export function escapeLineControls(line: string): string {
  return LINE_ESCAPED.test(line) ? line.replace(LINE_ESCAPES, escapeOne) : line
}

/** The UTF-8 encoding of `code`: its lead byte, the one after it, and how many bytes it takes. */
function utf8Start(code: number): [lead: number, next: number, size: number] {
  if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 0x3f), 2]
  if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 3]
  return [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 4]
}

/**
 * 1 at each lead byte of a UTF-8 encoding of the list's code points, else 0: most text past ASCII
 * (accented Latin, CJK, emoji) holds none, so a loop over bytes passes it at one look a byte.
 */
export const ESCAPED_LEADS = new Uint8Array(256)
// The same for a lead byte and the byte after it, by the low six bits of each: exact for a character
// of two bytes, and for one of three or four the block of characters that share both.
const ESCAPED_PAIRS = new Uint8Array(64 * 64)
const ESCAPED_CODES = new Set<number>()
for (const [first, last] of ESCAPED_RANGES) {
  for (let code = first; code <= last; code += 1) {
    const [lead, next] = utf8Start(code)
    ESCAPED_LEADS[lead] = 1
    ESCAPED_PAIRS[((lead & 0x3f) << 6) | (next & 0x3f)] = 1
    ESCAPED_CODES.add(code)
  }
}

/**
 * True when the UTF-8 character that starts at `bytes[at]` is one `ESCAPED_RANGES` holds; false for
 * ASCII and for a continuation byte. For valid UTF-8 (the parsers' bytes are): lets a loop over bytes
 * find what must be escaped without decoding the text that holds nothing to escape.
 */
export function isEscapedAt(bytes: Uint8Array, at: number): boolean {
  const lead = bytes[at]!
  if (ESCAPED_LEADS[lead] === 0) return false
  const next = bytes[at + 1]! & 0x3f
  if (ESCAPED_PAIRS[((lead & 0x3f) << 6) | next] === 0) return false
  if (lead < 0xe0) return true
  const third = bytes[at + 2]! & 0x3f
  if (lead < 0xf0) return ESCAPED_CODES.has(((lead & 0x0f) << 12) | (next << 6) | third)
  return ESCAPED_CODES.has(((lead & 0x07) << 18) | (next << 12) | (third << 6) | (bytes[at + 3]! & 0x3f))
}
