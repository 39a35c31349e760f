// How the equivalence oracles (grep/reference-pipeline.ts, glob/reference-listing.ts) show names and
// lines, written apart from the product's display helpers: character by character from Unicode's own
// categories, where the product uses a fixed list and byte checks, so the two agree only if both are right.
import path from 'node:path'

// What a page escapes: controls (Cc), format characters (Cf), line and paragraph separators (Zl, Zp).
const ESCAPED = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u
// The short escapes JSON writes for these controls.
const SHORT: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' }

/** `\u` and four hex digits for each UTF-16 unit of `char`, or its short JSON escape. */
function escaped(char: string): string {
  return SHORT[char] ?? [...Array(char.length).keys()].map((unit) => `\\u${char.charCodeAt(unit).toString(16).padStart(4, '0')}`).join('')
}

function isLoneSurrogate(char: string): boolean {
  return char.length === 1 && char.charCodeAt(0) >= 0xd800 && char.charCodeAt(0) <= 0xdfff
}

/** A matched line as the page shows it: each escaped character but TAB written as an escape. */
export function referenceEscapeLine(line: string): string {
  let shown = ''
  for (const char of line) shown += char !== '\t' && ESCAPED.test(char) ? escaped(char) : char
  return shown
}

/** A name as the page shows it: as it is, or JSON-quoted with every escaped character and lone surrogate written as an escape. */
export function referenceQuoteName(name: string): string {
  const chars = [...name]
  if (!chars.some((char) => ESCAPED.test(char) || isLoneSurrogate(char))) return name
  const body = chars.map((char) =>
    char === '"' || char === '\\' ? `\\${char}` : ESCAPED.test(char) || isLoneSurrogate(char) ? escaped(char) : char,
  )
  return `"${body.join('')}"`
}

/** A path relative to the workdir inside it, absolute outside it, quoted as a name. */
export function referenceDisplayPath(workdir: string, file: string): string {
  const absolute = path.resolve(workdir, file)
  const relative = path.relative(workdir, absolute)
  return referenceQuoteName(relative === '' ? '.' : relative === '..' || relative.startsWith(`..${path.sep}`) ? absolute : relative)
}

/** The names rg prints under `dir`, shown: joined to the directory's display, or resolved when they could step outside it. */
export function referenceDisplayFrom(workdir: string, dir: string): (name: string) => string {
  const base = referenceDisplayPath(workdir, dir)
  const slow = (name: string): string => referenceDisplayPath(workdir, path.resolve(dir, name))
  if (base.startsWith('"')) return slow
  const prefix = base === '.' ? '' : base.endsWith('/') ? base : `${base}/`
  return (name) => {
    const relative = name.startsWith('./') ? name.slice(2) : name
    const segments = relative.split('/')
    if (relative.startsWith('/') || segments.includes('..')) return slow(name)
    return referenceQuoteName(prefix + relative)
  }
}
