// Where a search's pattern matches within a shown line, as runs of plain and matched text.

/** A run of a line: matched by the pattern, or not. */
export interface LineSegment {
  text: string
  hit: boolean
}

/**
 * The pattern as a JavaScript regular expression, or undefined when it has none: rg's syntax is
 * mostly JavaScript's, and a pattern JavaScript cannot read is simply not highlighted.
 */
export function patternRegExp(pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined || pattern === '') return undefined
  // Unicode mode first, as rg reads `.` as a character; some patterns parse only without it (`\-`).
  for (const flags of ['gu', 'g']) {
    try {
      return new RegExp(pattern, flags)
    } catch {
      // Try the next reading.
    }
  }
  return undefined
}

/** `line` split where `regex` matches; an empty match highlights nothing and moves on. */
export function highlightSegments(line: string, regex: RegExp | undefined): LineSegment[] {
  if (regex === undefined) return [{ text: line, hit: false }]
  const segments: LineSegment[] = []
  let at = 0
  for (const match of line.matchAll(regex)) {
    if (match[0] === '') continue
    if (match.index > at) segments.push({ text: line.slice(at, match.index), hit: false })
    segments.push({ text: match[0], hit: true })
    at = match.index + match[0].length
  }
  if (at < line.length || segments.length === 0) segments.push({ text: line.slice(at), hit: false })
  return segments
}
