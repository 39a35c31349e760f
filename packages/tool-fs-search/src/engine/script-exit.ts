// The exit statuses the scripts add to rg's 0 (found), 1 (none) and 2 (partial or error), and what they mean.
import type { BashRunResult } from '@dsh/core'
import { SearchError } from '../errors.js'
import { displayPath } from './display-path.js'
import { stderrExcerpt } from './rg-stderr.js'

/** The directory to search exists but cannot be entered: the executor's user lacks search permission. */
export const EXIT_CANNOT_ENTER = 3
/** The path to search does not exist, or a directory above it cannot be entered. */
export const EXIT_MISSING = 4
/** glob's search root is not a directory. */
export const EXIT_NOT_DIRECTORY = 5
/** grep was given an include that filters files, and a file to search. */
export const EXIT_INCLUDE_ON_FILE = 6
/** glob's mtime helper could not stat some names rg listed; its messages are on stderr. */
export const EXIT_MTIME_PARTIAL = 7
/** grep's file list for the index: the executor has no `xargs -0` to name files with (docs/design.md#named-candidates). */
export const EXIT_NO_XARGS = 9
/** glob's mtime helper could not run at all (the shell's 126 or 127, or a signal). */
export const EXIT_MTIME_UNAVAILABLE = 125

/** Which tool searched what, from where: the failure names them. */
export interface SearchTarget {
  tool: 'glob' | 'grep'
  /** The resolved working directory. */
  workdir: string
  /** The path to search, as the model gave it (or the root a glob pattern named). */
  target: string
}

/**
 * The failure a script status means for the path to search (missing, or a directory that cannot be
 * entered), or undefined for any other status. The working directory is named as such: the executor
 * found it, so when the shell cannot see it the cause is permission, not absence.
 */
export function targetFailure(run: BashRunResult, { tool, workdir, target }: SearchTarget): SearchError | undefined {
  const missing = run.exitCode === EXIT_MISSING
  if (!missing && run.exitCode !== EXIT_CANNOT_ENTER) return undefined
  // A target with ".." is shown as given: `missing/..` displays as ".", which names the working directory.
  const shown = target.split('/').includes('..') ? target : displayPath(workdir, target)
  const said = run.stderr.text.trim() === '' ? '' : ` ${stderrExcerpt(run)}`
  const denied = `exists but cannot be entered (permission denied for the executor's user).${said}`
  if (shown === '.') return new SearchError('SEARCH_FAILED', `${tool} cannot run in the working directory ${workdir}: it ${denied}`)
  if (missing) {
    return new SearchError(
      'SEARCH_FAILED',
      `${tool} cannot search ${shown}: no such file or directory (or a directory above it cannot be entered). Check the path.`,
    )
  }
  return new SearchError('SEARCH_FAILED', `${tool} cannot search ${shown}: the directory ${denied}`)
}
