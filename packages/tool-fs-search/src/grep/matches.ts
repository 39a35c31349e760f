// Matches as the model sees them: display paths, previews cut and escaped, in a deterministic order.
import { TextRetainer } from '@dsh/core'
import { escapeLineControls } from '../shared/escape-controls.js'
import type { GrepMatch } from './parse.js'

/** The shown matches, and how many of them the page's footers must explain. */
export interface ShownMatches {
  matches: GrepMatch[]
  /** Matched lines whose control characters are shown escaped. */
  escaped: number
  /** Matches whose line or path holds U+FFFD. */
  lossy: number
}

/**
 * Rewrites rg's matches in place for display: paths through `shown`, lines cut to `maxLineBytes` and
 * their control characters escaped, then ordered by path, then line
 * (docs/design.md#deterministic-pages). rg prints a file's lines in order but files in any order, so
 * files are sorted and lines only when they must be.
 */
export function showMatches(raw: readonly GrepMatch[], shown: (file: string) => string, maxLineBytes: number): ShownMatches {
  const preview = new TextRetainer({ maxBytes: maxLineBytes })
  const displayed = new Map<string, string>()
  const byFile = new Map<string, GrepMatch[]>()
  let escaped = 0
  let lossy = 0
  for (const match of raw) {
    let file = displayed.get(match.path)
    if (file === undefined) displayed.set(match.path, (file = shown(match.path)))
    match.path = file
    // A UTF-16 unit is at most 3 UTF-8 bytes: shorter lines fit their budget without measuring.
    if (match.line.length * 3 > maxLineBytes) {
      const kept = preview.retain(match.line)
      match.line = kept.text
      match.lineCut ||= kept.truncated
    }
    // Escaped after the cut: the byte budget is the file's text, not its escapes.
    const line = escapeLineControls(match.line)
    if (line !== match.line) {
      match.line = line
      escaped += 1
    }
    if (match.line.includes('\ufffd') || file.includes('\ufffd')) lossy += 1
    let group = byFile.get(file)
    if (group === undefined) byFile.set(file, (group = []))
    group.push(match)
  }
  // Two raw paths can display the same (lossy decoding); keying by the display merges them.
  const matches = [...byFile.keys()].sort().flatMap((file) => {
    const matches = byFile.get(file)!
    return inLineOrder(matches) ? matches : matches.sort((a, b) => a.lineNumber - b.lineNumber)
  })
  return { matches, escaped, lossy }
}

function inLineOrder(matches: readonly GrepMatch[]): boolean {
  return matches.every((m, i) => i === 0 || matches[i - 1]!.lineNumber <= m.lineNumber)
}
