// Load-time probes of the bash executor: which rg to run, which mtime helpers glob runs, what output cap applies.
import type { BashExecutor, BashRunResult, BashSpec, Logger } from '@dsh/core'
import type { SearchConfig } from './config.js'
import { SearchError } from './errors.js'
import type { MtimeLister } from './glob-command.js'
import { shellCommand } from './shell-quote.js'

// A probe (a PATH lookup, `rg --version`) answers in milliseconds; ten seconds means the executor is stuck.
const PROBE_TIMEOUT_MS = 10_000
// A probe prints a path and a version line or two; an executor that cuts even this much is not trusted.
const PROBE_STDOUT_MAX_BYTES = 65_536

/** The packaged ripgrep (`@vscode/ripgrep`), or undefined where its platform package is missing. */
export async function packagedRgPath(): Promise<string | undefined> {
  try {
    return (await import('@vscode/ripgrep')).rgPath
  } catch {
    return undefined
  }
}

/** The rg commands to try, in order (DESIGN amendment 9): configured, packaged, then `rg` on PATH. */
export function rgCandidates(configured: string | undefined, packaged: string | undefined): string[] {
  return [...new Set([configured, packaged, 'rg'].filter((c): c is string => c !== undefined))]
}

/**
 * A POSIX sh function that prints a command's absolute path. A name with a `/` is taken as a path (a
 * relative one made absolute here, since the tools run from inside the search root); a bare name is
 * looked up in the absolute PATH entries only: an empty or `.` entry means the current directory,
 * which for a search is the searched tree, whose own `./find` must never run. Builtins and functions
 * are not programs, so unlike `command -v` this never returns one.
 */
const LOOKUP = [
  'dsh_lookup() {',
  '  case $1 in',
  '  */*) [ -f "$1" ] && [ -x "$1" ] || return 1',
  `    case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac ;;`,
  '  *) rest=$PATH:',
  '    while [ -n "$rest" ]; do',
  '      d=${rest%%:*}; rest=${rest#*:}',
  `      case $d in /*) if [ -f "$d/$1" ] && [ -x "$d/$1" ]; then printf '%s/%s' "$d" "$1"; return 0; fi ;; esac`,
  '    done',
  '    return 1 ;;',
  '  esac',
  '}',
].join('\n')

/** The rg probe script: the candidate's absolute path, a NUL, then what its `--version` prints. */
export function buildProbeCommand(rg: string): string {
  return [LOOKUP, `p=$(dsh_lookup ${shellCommand([rg])}) || exit 1`, 'v=$("$p" --version </dev/null 2>/dev/null)', `printf '%s\\0%s' "$p" "$v"`].join('\n')
}

/**
 * The mtime helper probe script: `find` NUL path when GNU find reads a NUL-separated list
 * (findutils >= 4.9), else `stat` NUL xargs-path NUL stat-path when GNU stat prints nanoseconds.
 */
export function buildMtimeProbeCommand(): string {
  return [
    LOOKUP,
    `if f=$(dsh_lookup find) && "$f" -files0-from /dev/null -maxdepth 0 >/dev/null 2>&1; then printf 'find\\0%s' "$f"`,
    `elif x=$(dsh_lookup xargs) && s=$(dsh_lookup stat) && "$s" --printf='%.9Y' -- / >/dev/null 2>&1; then printf 'stat\\0%s\\0%s' "$x" "$s"`,
    'else exit 1; fi',
  ].join('\n')
}

/** A probe run to its exit code; one that cannot start, times out, is aborted or has none is a broken executor. */
async function runProbe(bash: BashExecutor, command: string, what: string, subject = ''): Promise<{ run: BashRunResult; spec: BashSpec }> {
  let spec: BashSpec
  let run: BashRunResult
  try {
    spec = await bash.resolve({ command, timeoutMs: PROBE_TIMEOUT_MS, stdoutMaxBytes: PROBE_STDOUT_MAX_BYTES })
    run = await bash.run(spec)
  } catch (error) {
    throw new SearchError('SEARCH_FAILED', `the ${what} probe could not run in the bash executor: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  if (run.aborted || run.timedOut || run.exitCode === null) {
    throw new SearchError('SEARCH_FAILED', `the ${what} probe${subject} did not finish with an exit code: the bash executor is broken`)
  }
  return { run, spec }
}

/** What one candidate's probe says: ripgrep at an absolute path, nothing runnable, or something that is not ripgrep. */
type RgVerdict = { verdict: 'ripgrep'; path: string } | { verdict: 'absent' } | { verdict: 'refused'; reason: string }

/**
 * Reads a candidate's probe. A cut output is never trusted: a prefix of one path can name another
 * program. An rgPath of /bin/true also "exists"; only rg answers `--version` with its own name.
 */
function judgeRgProbe(run: BashRunResult, spec: BashSpec): RgVerdict {
  if (run.stdout.truncated) return { verdict: 'refused', reason: `the probe's output was cut at ${spec.stdoutMaxBytes} bytes by the executor` }
  const out = run.stdout.text
  const nul = out.indexOf('\0')
  const path = nul === -1 ? out : out.slice(0, nul)
  if (run.exitCode !== 0 || !path.startsWith('/')) return { verdict: 'absent' }
  const version = nul === -1 ? '' : out.slice(nul + 1)
  if (/^ripgrep \d/.test(version)) return { verdict: 'ripgrep', path }
  return { verdict: 'refused', reason: `not ripgrep: "--version" printed ${JSON.stringify(version.split('\n')[0]!.slice(0, 80))}` }
}

/**
 * Probes each candidate through the executor (seed 000): a remote executor has no packaged binary, so
 * only the executor can say what it can run. Returns the absolute path of the first candidate that is
 * ripgrep, or undefined after a warning when none is. A probe that cannot start, times out, is aborted
 * or has no exit code is a broken executor, not a missing rg: it throws.
 */
export async function chooseRg(bash: BashExecutor, candidates: readonly string[], logger: Logger): Promise<string | undefined> {
  const tried: string[] = []
  for (const rg of candidates) {
    const { run, spec } = await runProbe(bash, buildProbeCommand(rg), 'ripgrep', ` for ${rg}`)
    const judged = judgeRgProbe(run, spec)
    if (judged.verdict === 'ripgrep') {
      if (tried.length > 0) logger.warn(`tool-fs-search: using ${judged.path}; not runnable in the executor: ${tried.join(', ')}`)
      return judged.path
    }
    tried.push(judged.verdict === 'refused' ? `${rg} (${judged.reason})` : rg)
  }
  logger.warn(`tool-fs-search: ripgrep is not runnable in the bash executor (tried ${tried.join(', ')}); glob and grep are not registered`)
  return undefined
}

/**
 * Resolves glob's mtime helpers once, to absolute paths, in the executor's environment; undefined
 * after a warning when neither GNU find (>= 4.9) nor xargs and GNU stat are there.
 */
export async function chooseMtimeLister(bash: BashExecutor, logger: Logger): Promise<MtimeLister | undefined> {
  const { run } = await runProbe(bash, buildMtimeProbeCommand(), 'mtime helper')
  const [helper, first, second] = run.stdout.text.split('\0')
  const absolute = (program: string | undefined): program is string => program?.startsWith('/') === true
  if (run.exitCode === 0 && !run.stdout.truncated) {
    if (helper === 'find' && absolute(first)) return { helper, find: first }
    if (helper === 'stat' && absolute(first) && absolute(second)) return { helper, xargs: first, stat: second }
  }
  logger.warn('tool-fs-search: glob is not registered: it needs GNU find (>= 4.9), or xargs and GNU stat, in the bash executor to order files by modification time')
  return undefined
}

/**
 * Warns when the executor keeps less stdout than `rawOutputMaxBytes`: it caps every request at its
 * own ceiling, so searches would stop at that smaller size. Asked of `resolve`, which applies it.
 */
export async function warnAboveOutputCap(bash: BashExecutor, config: SearchConfig, logger: Logger): Promise<void> {
  const cap = config.rawOutputMaxBytes
  const applied = (await bash.resolve({ command: 'true', stdoutMaxBytes: cap })).stdoutMaxBytes
  if (applied < cap) {
    logger.warn(`tool-fs-search: rawOutputMaxBytes is ${cap}, but the bash executor keeps at most ${applied} bytes of output; searches stop at ${applied} bytes`)
  }
}
