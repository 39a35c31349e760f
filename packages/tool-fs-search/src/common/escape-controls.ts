// Control characters shown as escapes, so a repository can neither drive a terminal nor forge lines.

// C0 controls, DEL and C1 controls: a terminal acts on them (ESC opens a sequence, CR returns the
// cursor over a line already shown, U+009B is an 8-bit CSI).
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
// The same without TAB: a tab in a matched line is indentation, and harmless.
// eslint-disable-next-line no-control-regex -- as above
const LINE_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/
const LINE_CONTROLS = new RegExp(LINE_CONTROL.source, 'g')
// JSON.stringify escapes C0 but leaves DEL and C1 raw.
const DEL_AND_C1 = /[\u007f-\u009f]/g
// A lone surrogate cannot be encoded as UTF-8; JSON.stringify escapes it (`\ud800`).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** The JSON escape of one control character: `\r`, `\n`, `\t`, `\b`, `\f`, else `\u001b` and the like. */
function escapeOne(char: string): string {
  const code = char.charCodeAt(0)
  return code < 0x20 ? JSON.stringify(char).slice(1, -1) : `\\u${code.toString(16).padStart(4, '0')}`
}

/** A name as shown: JSON-quoted, with every control character escaped, when it holds one or a lone surrogate. */
export function quoteName(name: string): string {
  return CONTROL.test(name) || LONE_SURROGATE.test(name) ? JSON.stringify(name).replace(DEL_AND_C1, escapeOne) : name
}

/**
 * A matched line with its control characters but TAB written as JSON escapes (ESC as `\u001b`, CR as
 * `\r`), or the line itself when it has none. Not quoted: a line's backslashes stay as they are, so
 * the page's footer says when a line was escaped.
 */
export function escapeLineControls(line: string): string {
  return LINE_CONTROL.test(line) ? line.replace(LINE_CONTROLS, escapeOne) : line
}
