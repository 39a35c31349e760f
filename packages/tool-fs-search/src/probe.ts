// Choosing the ripgrep to run, by probing candidates through the bash executor.
import type { BashExecutor, BashRunResult, Logger } from '@dsh/core'
import { SearchError } from './errors.js'
import { shellCommand } from './shell-quote.js'

// A `command -v` answers in milliseconds; ten seconds means the executor itself is stuck.
const PROBE_TIMEOUT_MS = 10_000

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
 * The probe script: `command -v` in the executor, printing the command's absolute path. A relative
 * rgPath is made absolute here, since the tools run rg from inside the search root; a builtin or a
 * function (`command -v -v` succeeds) is not a runnable rg.
 */
export function buildProbeCommand(rg: string): string {
  return `p=$(command -v -- ${shellCommand([rg])}) || exit 1; case $p in /*) ;; *) [ -x "$p" ] || exit 1; p=$PWD/$p ;; esac; printf '%s' "$p"`
}

/**
 * Probes each candidate through the executor (seed 000): a remote executor has no packaged binary, so
 * only the executor can say what it can run. Returns the absolute path of the first candidate found,
 * or undefined after a warning when none is. A probe that cannot start, times out, is aborted or has
 * no exit code is a broken executor, not a missing rg: it throws.
 */
export async function chooseRg(bash: BashExecutor, candidates: readonly string[], logger: Logger): Promise<string | undefined> {
  for (const rg of candidates) {
    const command = buildProbeCommand(rg)
    let run: BashRunResult
    try {
      run = await bash.run(await bash.resolve({ command, timeoutMs: PROBE_TIMEOUT_MS }))
    } catch (error) {
      throw new SearchError('SEARCH_FAILED', `the ripgrep probe could not run in the bash executor: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    if (run.aborted || run.timedOut || run.exitCode === null) {
      throw new SearchError('SEARCH_FAILED', `the ripgrep probe for ${rg} did not finish with an exit code: the bash executor is broken`)
    }
    const found = run.stdout.text
    if (run.exitCode === 0 && found.startsWith('/')) {
      if (rg !== candidates[0]) logger.warn(`tool-fs-search: using ${found}; not runnable in the executor: ${candidates.slice(0, candidates.indexOf(rg)).join(', ')}`)
      return found
    }
  }
  logger.warn(`tool-fs-search: ripgrep is not runnable in the bash executor (tried ${candidates.join(', ')}); glob and grep are not registered`)
  return undefined
}
