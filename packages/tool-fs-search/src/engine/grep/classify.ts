// What the grep script's exit status and stderr mean: matches, none, partial, or a failure.
import type { BashRunResult } from '@dsh/core'
import { SearchError } from '../../errors.js'
import { displayPath, explicitPath } from '../display-path.js'
import { classifyExit2, type SearchGaps } from '../exit-2.js'
import { stderrExcerpt } from '../rg-stderr.js'
import { EXIT_INCLUDE_ON_FILE, targetFailure } from '../script-exit.js'
import type { IncludePlan } from './include.js'
import type { ParsedOutput } from './parse.js'

/** What one grep was asked to search: its messages name it. */
export interface GrepCall {
  /** The resolved working directory. */
  workdir: string
  target: string
  /** The include as the model sent it, and as `planInclude` planned it. */
  include: string | undefined
  plan: IncludePlan
}

/** Fails the search for an exit status that is neither matches (0), none (1) nor partial (2). */
export function assertGrepRan(run: BashRunResult, { workdir, target, include }: GrepCall): void {
  if (run.exitCode === 0 || run.exitCode === 1 || run.exitCode === 2) return
  const unusable = targetFailure(run, { tool: 'grep', workdir, target })
  if (unusable !== undefined) throw unusable
  if (run.exitCode === EXIT_INCLUDE_ON_FILE) {
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      `grep include ${JSON.stringify(include)} filters the files of a directory search, but path ${displayPath(workdir, target)} is a file, so it cannot apply. Drop include to search the file, or pass its directory as path.`,
    )
  }
  throw new SearchError(
    'SEARCH_FAILED',
    `grep failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`,
  )
}

// rg 15's refusal of a pattern that needs a NUL byte: binary detection makes it impossible to match.
const NUL_PATTERN = 'rg: pattern contains "\\0"'

/**
 * What an exit 2 means (docs/design.md#exit-2-is-not-always-failure): a rejected pattern, a search
 * root rg could not read (a failure), or some unreadable paths under it, whose names are returned
 * while every readable match is kept. When rg searched one file, nothing found means that file
 * failed, whatever stderr says (its name may hold a newline that splits rg's message).
 */
export function partialSearchErrors(run: BashRunResult, output: ParsedOutput, { workdir, target, plan }: GrepCall): SearchGaps {
  if (run.exitCode !== 2) return { paths: [] }
  const found = output.records.count > 0 || output.binaryFiles.length > 0
  if (!found && run.stderr.text.split('\n').some((line) => line.startsWith(NUL_PATTERN))) {
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      'grep cannot match a NUL byte: it skips binary files, so a pattern that needs one (such as \\x00) can never match. Remove it from the pattern.',
    )
  }
  // rg names a root as it was given one: the file target, `.` inside a directory, or the include's directory.
  const narrowed = plan.subdir ?? plan.name
  const roots = [explicitPath(target), '.', ...(narrowed === undefined ? [] : [explicitPath(narrowed)])]
  const reading = classifyExit2(run, { found, roots })
  if (reading.verdict === 'rejected') {
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      `grep pattern or include rejected by rg: ${stderrExcerpt(run)} Fix the pattern (ripgrep regex syntax; one line at a time) and try again.`,
    )
  }
  if (reading.verdict === 'partial' && (found || output.searched === 'directory')) return reading.gaps
  throw new SearchError(
    'SEARCH_FAILED',
    `grep cannot search ${displayPath(workdir, target)}: ${stderrExcerpt(run)} Check the path and try again.`,
  )
}
