// What rg's exit 2 means for either tool: a rejected pattern, an unreadable root, or a partial result.
import type { BashRunResult } from '@dsh/core'
import { isPatternError, rgErrorLines, stderrExcerpt } from './rg-stderr.js'

/** What a partial search (rg's exit 2) left out: the paths rg named, or what it printed when it named none. */
export interface SearchGaps {
  paths: string[]
  /** rg's stderr excerpt, when it exited 2 without naming a path: incomplete all the same. */
  unexplained?: string
}

/** The gaps as the result's `incomplete` list. */
export function listGaps(gaps: SearchGaps): string[] {
  return gaps.unexplained === undefined ? gaps.paths : [gaps.unexplained]
}

/** What one exit 2 says; each tool words the failures its own way. */
export type Exit2Reading =
  /** rg refused the pattern or a glob, and found nothing. */
  | { verdict: 'rejected' }
  /** rg could not read a search root, and found nothing. */
  | { verdict: 'root-unreadable' }
  /** rg found nothing and named no path it could not read. */
  | { verdict: 'unexplained' }
  /** The search ran; what it could not read is named (or, when rg named nothing, quoted). */
  | { verdict: 'partial'; gaps: SearchGaps }

/** What rg produced and what it was asked to search: the names an error on a root would start with. */
export interface Exit2Context {
  /** rg printed at least one result. */
  found: boolean
  /** The search roots as rg names them in an error line (`./`, `.`, `./src`). */
  roots: readonly string[]
}

/**
 * Reads an exit 2 (docs/design.md#exit-2-is-not-always-failure). rg exits 2 both when it could not
 * run and when it searched everything it could read: a rejected pattern or an unreadable root with
 * nothing found is a failure, while unreadable paths under a root leave every readable result
 * standing, named as gaps. Results with an error rg tied to no path are incomplete all the same.
 */
export function classifyExit2(run: BashRunResult, { found, roots }: Exit2Context): Exit2Reading {
  if (!found && isPatternError(run)) return { verdict: 'rejected' }
  const errors = rgErrorLines(run)
  const rootFailed = errors.some((line) => roots.some((root) => line.startsWith(`${root}: `)))
  if (!found && rootFailed) return { verdict: 'root-unreadable' }
  if (errors.length > 0) return { verdict: 'partial', gaps: { paths: errors } }
  if (!found) return { verdict: 'unexplained' }
  return { verdict: 'partial', gaps: { paths: [], unexplained: stderrExcerpt(run) } }
}
