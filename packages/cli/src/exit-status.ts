// A tool call's exit status, as rg's: whether the call found something, found nothing, or failed.
import type { ToolResult } from '@dsh/core'
import { EXIT } from './cli-io.js'

/**
 * What a successful value says it found. A search tool's value (glob's, grep's, the claude-code
 * profile's Glob and Grep) counts its results in `total` and names what it could not read in
 * `incomplete`; a value without a count (read's page) found what was asked for.
 */
interface FoundCount {
  total: number
  incomplete: boolean
}

function foundCount(value: unknown): FoundCount | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { total, incomplete } = value as { total?: unknown; incomplete?: unknown }
  if (typeof total !== 'number') return undefined
  return { total, incomplete: Array.isArray(incomplete) && incomplete.length > 0 }
}

/**
 * 0 when the call found or listed something (a search with a result, even a partial one; a read),
 * 1 when a complete search found nothing, 2 on a failure. A search that found nothing but did not
 * read everything (it timed out, or paths were unreadable) is 2, as rg's status is when it met an
 * error: its "nothing" is not an answer a script may act on (`dsh grep X || echo absent`).
 */
export function resultStatus(result: ToolResult): number {
  if (result.isError) return EXIT.error
  const found = foundCount(result.value)
  if (found === undefined || found.total > 0) return EXIT.ok
  return found.incomplete ? EXIT.error : EXIT.nothingFound
}
