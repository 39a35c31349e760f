// What rg's exit status and stderr mean for a grep (DESIGN amendment 3): matches, none, partial, or
// a failure that must never read as "no matches".
import type { BashRunResult } from '@dsh/core'
import { SearchError } from './errors.js'
import { planInclude, type GrepOutput } from './grep-command.js'
import type { RgOutput } from './grep-parse.js'
import { displayPath, explicitPath } from './display-path.js'
import { EXIT_INCLUDE_ON_FILE } from './script-exit.js'
import { isPatternError, rgErrorLines, stderrExcerpt, targetFailure, type SearchGaps } from './search-core.js'

/** What one grep was asked to search: its messages name it. */
export interface GrepCall {
  /** The resolved working directory. */
  workdir: string
  target: string
  include: string | undefined
}

/** Fails the search for an exit status that is neither matches (0), none (1) nor partial (2). */
export function assertGrepRan(run: BashRunResult, { workdir, target, include }: GrepCall): void {
  if (run.exitCode === 0 || run.exitCode === 1 || run.exitCode === 2) return
  const unusable = targetFailure('grep', run, workdir, target)
  if (unusable !== undefined) throw unusable
  if (run.exitCode === EXIT_INCLUDE_ON_FILE) {
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      `grep include ${JSON.stringify(include)} filters the files of a directory search, but path ${displayPath(workdir, target)} is a file, so it cannot apply. Drop include to search the file, or pass its directory as path.`,
    )
  }
  throw new SearchError('SEARCH_FAILED', `grep failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
}

// rg 15's refusal of a pattern that needs a NUL byte: binary detection makes it impossible to match.
const NUL_PATTERN = 'rg: pattern contains "\\0"'

/**
 * What an exit 2 means (amendment 3): a rejected pattern, a search root rg could not read (a failure),
 * or some unreadable paths under it, whose names are returned while every readable match is kept.
 * When rg searched one file, nothing found means that file failed, whatever stderr says (its name
 * may hold a newline that splits rg's message). An exit 2 with matches is incomplete even when
 * stderr names no path.
 */
export function partialSearchErrors(run: BashRunResult, output: RgOutput, searched: GrepOutput['searched'], { workdir, target, include }: GrepCall): SearchGaps {
  if (run.exitCode !== 2) return { paths: [] }
  const found = output.matches.length > 0 || output.binaryFiles.length > 0
  const lines = run.stderr.text.split('\n')
  if (!found && lines.some((line) => line.startsWith(NUL_PATTERN))) {
    throw new SearchError('SEARCH_INVALID_PATTERN', 'grep cannot match a NUL byte: it skips binary files, so a pattern that needs one (such as \\x00) can never match. Remove it from the pattern.')
  }
  if (!found && isPatternError(run)) {
    throw new SearchError('SEARCH_INVALID_PATTERN', `grep pattern or include rejected by rg: ${stderrExcerpt(run)} Fix the pattern (ripgrep regex syntax; one line at a time) and try again.`)
  }
  const errors = rgErrorLines(run)
  const plan = planInclude(include)
  const narrowed = plan.subdir ?? plan.name
  const roots = [explicitPath(target), '.', ...(narrowed === undefined ? [] : [explicitPath(narrowed)])]
  const rootFailed = errors.some((line) => roots.some((root) => line.startsWith(`${root}: `)))
  if (!found && (searched === 'file' || rootFailed || errors.length === 0)) {
    throw new SearchError('SEARCH_FAILED', `grep cannot search ${displayPath(workdir, target)}: ${stderrExcerpt(run)} Check the path and try again.`)
  }
  return errors.length > 0 ? { paths: errors } : { paths: [], unexplained: stderrExcerpt(run) }
}
