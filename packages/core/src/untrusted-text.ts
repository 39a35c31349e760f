// Text another program wrote (an MCP server's tool descriptions), made unable to deceive a model or a terminal.

/**
 * The escape sequences a terminal obeys: CSI (`ESC [`, or U+009B, then parameters, intermediates and a
 * final byte: colours, cursor moves, erasing), the string sequences OSC, DCS, SOS, PM and APC up to the
 * BEL or ST (`ESC \`, U+009C) that ends them (window titles, hyperlinks), and ESC with one printable
 * character after any intermediates (`ESC c` resets the terminal). ECMA-48 defines them all.
 */
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex -- escape sequences are made of control characters
  /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g

/**
 * What a reader cannot see, or sees other than it is: controls (C0, DEL, C1), format characters (the
 * bidi overrides and isolates that reorder text, U+200E/U+200F, U+061C, zero-width spaces and joiners,
 * U+2060–U+2064, the BOM, and the tag characters U+E0000–U+E007F, which spell text no one sees but a
 * model reads), line and paragraph separators, and lone surrogates.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu
/** The same but tab and line feed, which prose may hold. */
const HIDDEN_IN_PROSE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

/** A character as JSON escapes it: `\t`, `\n` and the like, else `\u202e` (two escapes for one beyond U+FFFF). */
function escapeOne(char: string): string {
  if (char < ' ') return JSON.stringify(char).slice(1, -1)
  let escaped = ''
  for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`
  return escaped
}

/**
 * Every character of `text` a reader could not see, or would see other than it is, written as its JSON
 * escape (`\u202e`, `\u001b`, `\n`), and nothing removed: for a name, which must stay one line and tell
 * apart from any other. Text that holds none comes back as it is.
 */
export function escapeHiddenCharacters(text: string): string {
  return text.replace(HIDDEN, escapeOne)
}

/**
 * Prose another program wrote, as a model or a terminal may be shown it (docs/design.md#upstream-text-is-cleaned):
 * escape sequences removed (they only style or drive a terminal), CRLF read as a line feed, and every
 * other character a reader could not see, or would see other than it is, written as its JSON escape
 * (`\u202e`), so what hid is shown rather than silently dropped. Tabs and line feeds stay. Cleaning
 * cleaned text changes nothing.
 */
export function cleanUntrustedText(text: string): string {
  return text.replaceAll('\r\n', '\n').replace(ESCAPE_SEQUENCE, '').replace(HIDDEN_IN_PROSE, escapeOne)
}
