// What the glob script's exit status and stderr mean: a listing, a partial one, or a failure.
import path from 'node:path'
import type { BashRunResult } from '@dsh/core'
import { SearchError } from '../../errors.js'
import { displayPath } from '../display-path.js'
import { classifyExit2, type SearchGaps } from '../exit-2.js'
import { rgErrorLines, stderrExcerpt } from '../rg-stderr.js'
import { EXIT_MTIME_PARTIAL, EXIT_MTIME_UNAVAILABLE, EXIT_NOT_DIRECTORY, targetFailure } from '../script-exit.js'
import { timedOutGaps } from '../timeout.js'
import type { MtimeLister } from './command.js'

/** What a listing left out: paths rg could not read, and files rg listed whose mtime could not be read. */
export interface GlobGaps {
  rg: SearchGaps
  /** The mtime helper's messages, one per file it could not stat (its program path stripped). */
  unstatted: string[]
  /** The helper failed: its messages may be missing, or name nothing. */
  helperFailed: boolean
}

/** What one glob ran: its messages name the root, and the helper's program paths are stripped from them. */
export interface GlobCall {
  /** The resolved working directory. */
  workdir: string
  root: string
  lister: MtimeLister
}

// rg runs from inside the root, so an error on the root itself names it `./` or `.`.
const ROOT_NAMES = ['./', '.']

/** The errors an exit status means, or what a partial listing left out. */
export function classifyGlobRun(run: BashRunResult, { workdir, root, lister }: GlobCall): GlobGaps {
  const complete = { rg: { paths: [] }, unstatted: [], helperFailed: false }
  switch (run.exitCode) {
    case 0:
    case 1:
      return complete
    case 2: {
      const reading = classifyExit2(run, { found: run.stdout.text !== '', roots: ROOT_NAMES })
      if (reading.verdict === 'partial') return { ...complete, rg: reading.gaps }
      if (reading.verdict === 'rejected') {
        throw new SearchError('SEARCH_INVALID_PATTERN', `glob pattern rejected by rg: ${stderrExcerpt(run)} Fix the pattern and try again.`)
      }
      // The root itself unreadable is a failure, not an empty listing (docs/design.md#exit-2-is-not-always-failure).
      if (reading.verdict === 'root-unreadable')
        throw new SearchError('SEARCH_FAILED', `glob cannot read ${displayPath(workdir, root)}: ${stderrExcerpt(run)}`)
      // Nothing listed and no path named: rg failed, and says why only on stderr.
      break
    }
    case EXIT_MTIME_PARTIAL:
      return { rg: { paths: rgErrorLines(run) }, unstatted: helperLines(run, lister), helperFailed: true }
    case EXIT_NOT_DIRECTORY:
      throw new SearchError(
        'SEARCH_FAILED',
        `glob searches directories, but ${displayPath(workdir, root)} is a file. Pass its directory as path, or grep the file.`,
      )
    case EXIT_MTIME_UNAVAILABLE:
      throw new SearchError(
        'SEARCH_FAILED',
        `glob could not run its modification-time helper (${helperPrograms(lister).join(', ')}), which worked when the tools loaded; it needs GNU find (>= 4.9), or xargs -0 and sh with a stat that prints modification times, in the executor.`,
      )
    default:
      // Another status, or a signal (null): the target's own failure, or rg's.
      break
  }
  const unusable = targetFailure(run, { tool: 'glob', workdir, target: root })
  throw (
    unusable ??
    new SearchError('SEARCH_FAILED', `glob failed: rg exited with status ${run.exitCode ?? `signal ${run.signal}`}. ${stderrExcerpt(run)}`)
  )
}

/**
 * What a listing the executor stopped at its time limit left out besides what rg never reached: the
 * paths it named as unreadable so far (docs/design.md#a-timeout-returns-what-was-found).
 */
export function timedOutGlobGaps(run: BashRunResult): GlobGaps {
  return { rg: timedOutGaps(run), unstatted: [], helperFailed: false }
}

/** The programs a helper runs, by absolute path: the mtime helper's, and dd when it gathers their output. */
function helperPrograms(lister: MtimeLister): string[] {
  return [...mtimePrograms(lister), ...(lister.dd === undefined ? [] : [lister.dd])]
}

function mtimePrograms(lister: MtimeLister): string[] {
  switch (lister.helper) {
    case 'find':
      return [lister.find]
    case 'finds':
      return [lister.perl, lister.find]
    case 'stat':
      return [lister.xargs, lister.stat]
    case 'stat-lines':
      return [lister.xargs, lister.stat, lister.sh]
  }
}

/**
 * The mtime helper's lines on stderr, without its program's name: each names a file it could not stat.
 * GNU tools name themselves by the path they were run as, BusyBox and BSD ones by their base name.
 */
function helperLines(run: BashRunResult, lister: MtimeLister): string[] {
  const programs = helperPrograms(lister).flatMap((program) => [`${program}: `, `${path.posix.basename(program)}: `])
  return run.stderr.text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('rg: '))
    .map((line) => programs.reduce((rest, prefix) => (rest.startsWith(prefix) ? rest.slice(prefix.length) : rest), line))
}
