// Paths as a model sees them, and as the shell must be given them.
import path from 'node:path'
import { ESCAPED_LEADS, isEscapedAt, quoteName } from './escape-controls.js'

/**
 * A path as the model sees it: relative to the workdir when inside it, and JSON-quoted with escapes
 * when it holds a control or format character (a newline would split it across lines of the result,
 * an ESC would reach the reader's terminal, U+202E would show the rest of it backwards).
 */
export function displayPath(workdir: string, file: string): string {
  const absolute = path.resolve(workdir, file)
  const relative = path.relative(workdir, absolute)
  const shown = relative === '' ? '.' : relative === '..' || relative.startsWith(`..${path.sep}`) ? absolute : relative
  return quoteName(shown)
}

/** How the names rg prints under one directory display. */
export interface NameDisplay {
  /** A name as the model sees it. */
  show: (name: string) => string
  /**
   * What `show` joins before a plain name (`isPlainName`), its `./` dropped: names that need nothing
   * else show as `prefix + name`. Undefined when every name takes the full route.
   */
  prefix: string | undefined
}

/**
 * `displayPath` for the many names rg prints under one directory, at the cost of a string join each:
 * resolving every one of 100k paths costs ~350 ms. Names that could step outside `dir` (`..`, an
 * absolute path) and a `dir` that itself needs quoting take the full route.
 */
export function nameDisplay(workdir: string, dir: string): NameDisplay {
  const base = displayPath(workdir, dir)
  const slow = (name: string): string => displayPath(workdir, path.resolve(dir, name))
  if (base.startsWith('"')) return { show: slow, prefix: undefined }
  const prefix = base === '.' ? '' : base.endsWith('/') ? base : `${base}/`
  const show = (name: string): string => {
    const relative = name.startsWith('./') ? name.slice(2) : name
    if (
      relative.startsWith('/') ||
      relative.startsWith('../') ||
      relative.includes('/../') ||
      relative === '..' ||
      relative.endsWith('/..')
    )
      return slow(name)
    return quoteName(prefix + relative)
  }
  return { show, prefix }
}

/** `nameDisplay(workdir, dir).show`. */
export function displayFrom(workdir: string, dir: string): (name: string) => string {
  return nameDisplay(workdir, dir).show
}

const SLASH = 0x2f
const DOT = 0x2e

/**
 * True when a name, as UTF-8 bytes, shows as its display prefix joined to it (`./` dropped): it holds
 * no control or format character to escape and no `..` segment or leading `/` that could step outside the
 * directory. Lets a listing of 100k names be written without a string for each.
 */
export function isPlainName(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start >= 2 && bytes[start] === DOT && bytes[start + 1] === SLASH) start += 2
  if (start < end && bytes[start] === SLASH) return false
  for (let at = start; at < end; at += 1) {
    const byte = bytes[at]!
    // C0 controls, DEL, and what else a name is quoted for (C1 controls, format characters).
    if (byte < 0x20 || byte === 0x7f || (ESCAPED_LEADS[byte] === 1 && isEscapedAt(bytes, at))) return false
    // A `..` segment: two dots between slashes or the ends.
    if (
      byte === DOT &&
      at + 1 < end &&
      bytes[at + 1] === DOT &&
      (at === start || bytes[at - 1] === SLASH) &&
      (at + 2 === end || bytes[at + 2] === SLASH)
    )
      return false
  }
  return true
}

/** A relative path that cannot read as an option, or as `cd -` (the previous directory). */
export function explicitPath(value: string): string {
  return value.startsWith('/') ? value : `./${value}`
}
