// What a Grep script's exit status and stderr mean, in every mode: results, none, partial, or a failure.
import type { BashRunResult } from '@dsh/core'
import { SearchError } from '../errors.js'
import { classifyGlobRun, type GlobGaps } from '../engine/glob/classify.js'
import type { MtimeLister } from '../engine/glob/command.js'
import type { IncludePlan } from '../engine/grep/include.js'
import { displayPath, explicitPath } from '../engine/display-path.js'
import { classifyExit2 } from '../engine/exit-2.js'
import { stderrExcerpt } from '../engine/rg-stderr.js'
import { EXIT_INCLUDE_ON_FILE, EXIT_MTIME_PARTIAL, EXIT_MTIME_UNAVAILABLE, targetFailure } from '../engine/script-exit.js'

/** What one Grep call searched: its messages name it. */
export interface ClaudeGrepCall {
  workdir: string
  target: string
  glob: string | undefined
  type: string | undefined
  plan: IncludePlan
  lister: MtimeLister
}

// rg 15's refusals: of a file type it does not know, and of a pattern that needs a NUL byte.
const UNKNOWN_TYPE = 'rg: unrecognized file type: '
const NUL_PATTERN = 'rg: pattern contains "\\0"'

/** The type rg said it does not know, or undefined. */
export function unknownType(run: BashRunResult): string | undefined {
  if (run.exitCode !== 2) return undefined
  const line = run.stderr.text.split('\n').find((text) => text.startsWith(UNKNOWN_TYPE))
  return line?.slice(UNKNOWN_TYPE.length)
}

/**
 * Fails the call for a status that is neither results (0), none (1), partial (2) nor a file list some
 * of whose times could not be read (the mtime helper's partial status, glob's).
 */
export function assertClaudeGrepRan(run: BashRunResult, call: ClaudeGrepCall): void {
  if (run.exitCode === 0 || run.exitCode === 1 || run.exitCode === 2 || run.exitCode === EXIT_MTIME_PARTIAL) return
  if (run.exitCode === EXIT_MTIME_UNAVAILABLE) classifyGlobRun(run, { workdir: call.workdir, root: call.target, lister: call.lister })
  if (run.exitCode === EXIT_INCLUDE_ON_FILE) {
    const filters = [
      call.glob === undefined ? [] : [`glob ${JSON.stringify(call.glob)}`],
      call.type === undefined ? [] : [`type ${JSON.stringify(call.type)}`],
    ].flat()
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      `Grep ${filters.join(' and ')} filters the files of a directory search, but path ${displayPath(call.workdir, call.target)} is a file, so it cannot apply. Drop it to search the file, or pass its directory as path.`,
    )
  }
  const unusable = targetFailure(run, { tool: 'grep', workdir: call.workdir, target: call.target })
  throw (
    unusable ??
    new SearchError('SEARCH_FAILED', `Grep failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
  )
}

/**
 * What a run that got through `assertClaudeGrepRan` left out: nothing for 0 and 1; for 2 a rejected
 * pattern or an unreadable target (thrown) or the paths rg could not read; for the mtime helper's
 * partial status, glob's reading. `found`: rg printed at least one result.
 */
export function claudeGrepGaps(run: BashRunResult, found: boolean, call: ClaudeGrepCall): GlobGaps {
  if (run.exitCode === EXIT_MTIME_PARTIAL) return classifyGlobRun(run, { workdir: call.workdir, root: call.target, lister: call.lister })
  const gaps = run.exitCode === 2 ? exit2Gaps(run, found, call) : { paths: [] }
  return { rg: gaps, unstatted: [], helperFailed: false }
}

/** An exit 2: as the dsh grep reads it (docs/design.md#exit-2-is-not-always-failure). */
function exit2Gaps(run: BashRunResult, found: boolean, call: ClaudeGrepCall) {
  if (!found && run.stderr.text.split('\n').some((line) => line.startsWith(NUL_PATTERN))) {
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      'Grep cannot match a NUL byte: it skips binary files, so a pattern that needs one (such as \\x00) can never match. Remove it from the pattern.',
    )
  }
  const narrowed = call.plan.subdir ?? call.plan.name
  const roots = [explicitPath(call.target), '.', ...(narrowed === undefined ? [] : [explicitPath(narrowed)])]
  const reading = classifyExit2(run, { found, roots })
  if (reading.verdict === 'rejected') {
    throw new SearchError(
      'SEARCH_INVALID_PATTERN',
      `Grep pattern or glob rejected by rg: ${stderrExcerpt(run)} Fix the pattern (ripgrep regex syntax) and try again.`,
    )
  }
  if (reading.verdict === 'partial') return reading.gaps
  throw new SearchError(
    'SEARCH_FAILED',
    `Grep cannot search ${displayPath(call.workdir, call.target)}: ${stderrExcerpt(run)} Check the path and try again.`,
  )
}
