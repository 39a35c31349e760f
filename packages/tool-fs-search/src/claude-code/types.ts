// rg's file types: the names a `type` may take, and the ones close to a name rg does not know.

/** The type names in `rg --type-list` output (`name: globs` per line). */
export function typeNames(typeList: string): string[] {
  return typeList
    .split('\n')
    .map((line) => line.slice(0, line.indexOf(':')))
    .filter((name) => name !== '')
}

/** Edit distance, for a few short names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i]
    for (let j = 1; j <= b.length; j += 1)
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
    previous = row
  }
  return previous[b.length]!
}

/**
 * Up to five names close to `wanted`: sharing its start, or within one edit (two for a name of five
 * letters or more), nearest first; ties keep the list's order (rg lists its types alphabetically).
 */
export function closeTypeNames(wanted: string, names: readonly string[]): string[] {
  const lower = wanted.toLowerCase()
  return names
    .map((name) => ({ name, far: name.startsWith(lower) || lower.startsWith(name) ? 0.5 : distance(lower, name) }))
    .filter(({ far }) => far <= (lower.length >= 5 ? 2 : 1))
    .sort((a, b) => a.far - b.far)
    .slice(0, 5)
    .map(({ name }) => name)
}
