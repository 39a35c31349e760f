// Byte budgets: how much of a list a page can show (docs/design.md#bytes-not-only-counts).

/** How many leading items fit in `maxBytes` by `cost`; at least one, so a page is never empty. */
export function countWithinBytes<T>(items: readonly T[], maxBytes: number, cost: (item: T) => number): number {
  let bytes = 0
  let count = 0
  for (const item of items) {
    bytes += cost(item)
    if (bytes > maxBytes && count > 0) break
    count += 1
  }
  return count
}
