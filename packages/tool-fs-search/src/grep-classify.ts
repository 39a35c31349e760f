// What rg's exit status and stderr mean for a grep (DESIGN amendment 3): matches, none, partial, or
// a failure that must never read as "no matches".
import type { BashRunResult } from '@dsh/core'
import { SearchError } from './errors.js'
import { EXIT_TARGET_UNUSABLE, planInclude } from './grep-command.js'
import type { RgOutput } from './grep-parse.js'
import { explicitPath } from './display-path.js'
import { isPatternError, rgErrorLines, stderrExcerpt } from './search-core.js'

/** Fails the search for an exit status that is neither matches (0), none (1) nor partial (2). */
export function assertGrepRan(run: BashRunResult, target: string): void {
  if (run.exitCode === 0 || run.exitCode === 1 || run.exitCode === 2) return
  if (run.exitCode === EXIT_TARGET_UNUSABLE) {
    throw new SearchError('SEARCH_FAILED', `grep cannot search ${target}: the directory cannot be entered. ${stderrExcerpt(run)}`)
  }
  throw new SearchError('SEARCH_FAILED', `grep failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
}

/**
 * What an exit 2 means (amendment 3): a rejected pattern, a search root rg could not read (a failure),
 * or some unreadable paths under it, whose names are returned while every readable match is kept.
 */
export function partialSearchErrors(run: BashRunResult, output: RgOutput, target: string, include: string | undefined): string[] {
  if (run.exitCode !== 2) return []
  const found = output.matches.length > 0 || output.binaryFiles.length > 0
  if (!found && isPatternError(run)) {
    throw new SearchError('SEARCH_INVALID_PATTERN', `grep pattern or include rejected by rg: ${stderrExcerpt(run)} Fix the pattern (ripgrep regex syntax; one line at a time) and try again.`)
  }
  const errors = rgErrorLines(run)
  const subdir = planInclude(include).subdir
  const roots = [explicitPath(target), '.', ...(subdir === undefined ? [] : [explicitPath(subdir)])]
  const rootFailed = errors.some((line) => roots.some((root) => line.startsWith(`${root}: `)))
  if (!found && (rootFailed || errors.length === 0)) {
    throw new SearchError('SEARCH_FAILED', `grep cannot search ${target}: ${stderrExcerpt(run)} Check the path and try again.`)
  }
  return errors
}
