// Running a load-time probe in the bash executor, and the PATH lookup every probe script starts with.
import { errorMessage, type BashExecutor, type BashRunResult, type BashSpec } from '@dsh/core'
import { SearchError } from '../../errors.js'

// A probe (a PATH lookup, `rg --version`) answers in milliseconds; ten seconds means the executor is stuck.
const PROBE_TIMEOUT_MS = 10_000
// A probe prints a path and a version line or two; an executor that cuts even this much is not trusted.
const PROBE_STDOUT_MAX_BYTES = 65_536

/**
 * A POSIX sh function that sets `dsh_path` to a command's absolute path, or fails. A name with a `/`
 * is taken as a path (a relative one made absolute here, since the tools run from inside the search
 * root); a bare name is looked up in the absolute PATH entries only: an empty or `.` entry means the
 * current directory, which for a search is the searched tree, whose own `./find` must never run.
 * Builtins and functions are not programs, so unlike `command -v` this never returns one. It sets a
 * variable rather than print, so a lookup costs no subshell (a fork each, several per probe).
 */
export const LOOKUP = [
  'dsh_lookup() {',
  '  dsh_path=',
  '  case $1 in',
  '  */*) [ -f "$1" ] && [ -x "$1" ] || return 1',
  '    case $1 in /*) dsh_path=$1 ;; *) dsh_path=$PWD/$1 ;; esac ;;',
  '  *) rest=$PATH:',
  '    while [ -n "$rest" ]; do',
  '      d=${rest%%:*}; rest=${rest#*:}',
  '      case $d in /*) if [ -f "$d/$1" ] && [ -x "$d/$1" ]; then dsh_path=$d/$1; return 0; fi ;; esac',
  '    done',
  '    return 1 ;;',
  '  esac',
  '}',
].join('\n')

/** What a probe chose: the program to run, or why there is none, in words that say how to fix it. */
export type ProbeChoice<T> = { available: true; chosen: T } | { available: false; reason: string }

/** One probe: its script, what it probes for, and whom (` for /opt/rg`) when that is not the helper itself. */
export interface Probe {
  command: string
  what: 'ripgrep' | 'mtime helper'
  subject?: string
}

/** A probe run to its exit code; one that cannot start, times out, is aborted or has none is a broken executor. */
export async function runProbe(
  bash: BashExecutor,
  { command, what, subject = '' }: Probe,
): Promise<{ run: BashRunResult; spec: BashSpec }> {
  let spec: BashSpec
  let run: BashRunResult
  try {
    spec = await bash.resolve({ command, timeoutMs: PROBE_TIMEOUT_MS, stdoutMaxBytes: PROBE_STDOUT_MAX_BYTES })
    run = await bash.run(spec)
  } catch (error) {
    throw new SearchError('SEARCH_FAILED', `the ${what} probe could not run in the bash executor: ${errorMessage(error)}`, { cause: error })
  }
  if (run.stop !== 'exit' || run.exitCode === null) {
    throw new SearchError('SEARCH_FAILED', `the ${what} probe${subject} did not finish with an exit code: the bash executor is broken`)
  }
  return { run, spec }
}
