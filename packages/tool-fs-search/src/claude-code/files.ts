// Grep's files_with_matches and count modes: one entry per file.
import type { ShownPaths } from '../engine/glob/paths.js'
import type { FileCount } from './counts.js'

/** The files newest first from the `start`th on, one per line. */
export function* fileEntries(paths: ShownPaths, start: number): Generator<string> {
  for (let index = start; index < paths.count; index += 1) yield `${index === start ? '' : '\n'}${paths.at(index)}`
}

/** A shown file's count. */
export interface ShownCount {
  path: string
  count: number
  /** A raw path shown as this one held bytes that were not valid UTF-8. */
  replaced: boolean
}

/**
 * Counts under display paths, sorted by path so identical calls page identically; two raw names that
 * display the same (lossy decoding) are added together, as the content mode merges their lines.
 */
export function showCounts(counts: readonly FileCount[], show: (path: string) => string): ShownCount[] {
  const byPath = new Map<string, ShownCount>()
  for (const { path, count, replaced } of counts) {
    const shown = show(path)
    const known = byPath.get(shown)
    if (known === undefined) byPath.set(shown, { path: shown, count, replaced })
    else {
      known.count += count
      known.replaced ||= replaced
    }
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1))
}

/** The counts from the `start`th on, `path:count` one per line. */
export function* countEntries(counts: Iterable<ShownCount>, start: number): Generator<string> {
  let index = 0
  for (const { path, count } of counts) {
    if (index >= start) yield `${index === start ? '' : '\n'}${path}:${count}`
    index += 1
  }
}
