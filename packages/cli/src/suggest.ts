// "Did you mean": the known command or option nearest to a mistyped one.

/** The nearest candidate by edit distance, when it is near enough to be what was meant. */
export function nearestName(typed: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase())
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  // One edit catches a slip or a transposition in a short name ("gerp", "mpc", "Glob"); a longer
  // one may take two ("globb", "greps"). More is a different word: "frob" is not "glob".
  return bestDistance <= (typed.length <= 4 ? 1 : 2) ? best : undefined
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = value
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The long option (`--include`) nearest to a mistyped long option, from the options' bare names. A
 * short option gets none: one letter is one edit from every other, and `-v` (rg's invert-match) is no
 * slip for `-V`.
 */
export function nearestOption(rawName: string, names: readonly string[]): string | undefined {
  if (!rawName.startsWith('--')) return undefined
  const near = nearestName(
    rawName.slice(2),
    names.filter((name) => name.length > 1),
  )
  return near === undefined ? undefined : `--${near}`
}
