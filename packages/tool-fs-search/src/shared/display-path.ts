// Paths as a model sees them, and as the shell must be given them.
import path from 'node:path'
import { quoteName } from './escape-controls.js'

/**
 * A path as the model sees it: relative to the workdir when inside it, and JSON-quoted with escapes
 * when it holds a control character (a newline would split it across lines of the result, an ESC
 * would reach the reader's terminal).
 */
export function displayPath(workdir: string, file: string): string {
  const absolute = path.resolve(workdir, file)
  const relative = path.relative(workdir, absolute)
  const shown = relative === '' ? '.' : relative === '..' || relative.startsWith(`..${path.sep}`) ? absolute : relative
  return quoteName(shown)
}

/**
 * `displayPath` for the many names rg prints under one directory, at the cost of a string join each:
 * resolving every one of 100k paths costs ~350 ms. Names that could step outside `dir` (`..`, an
 * absolute path) and a `dir` that itself needs quoting take the full route.
 */
export function displayFrom(workdir: string, dir: string): (name: string) => string {
  const base = displayPath(workdir, dir)
  const slow = (name: string): string => displayPath(workdir, path.resolve(dir, name))
  if (base.startsWith('"')) return slow
  const prefix = base === '.' ? '' : base.endsWith('/') ? base : `${base}/`
  return (name) => {
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
}

/** A relative path that cannot read as an option, or as `cd -` (the previous directory). */
export function explicitPath(value: string): string {
  return value.startsWith('/') ? value : `./${value}`
}
