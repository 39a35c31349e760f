// Choosing the ripgrep to run, by probing candidates through the bash executor.
import type { BashExecutor, Logger } from '@dsh/core'
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
 * Probes each candidate with `command -v` through the executor (seed 000): a remote executor has no
 * packaged binary, so only the executor can say what it can run. Returns the first that exits 0, or
 * undefined after a warning when none does. A probe that cannot start, times out, is aborted or has
 * no exit code is a broken executor, not a missing rg: it throws.
 */
export async function chooseRg(bash: BashExecutor, candidates: readonly string[], logger: Logger): Promise<string | undefined> {
  for (const rg of candidates) {
    const command = `command -v ${shellCommand([rg])} >/dev/null 2>&1`
    let exitCode: number | null
    try {
      const run = await bash.run(await bash.resolve({ command, timeoutMs: PROBE_TIMEOUT_MS }))
      exitCode = run.aborted || run.timedOut ? null : run.exitCode
    } catch (error) {
      throw new SearchError('SEARCH_FAILED', `the ripgrep probe could not run in the bash executor: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    if (exitCode === null) {
      throw new SearchError('SEARCH_FAILED', `the ripgrep probe (${command}) did not finish with an exit code: the bash executor is broken`)
    }
    if (exitCode === 0) {
      if (rg !== candidates[0]) logger.warn(`tool-fs-search: using ${rg}; not runnable in the executor: ${candidates.slice(0, candidates.indexOf(rg)).join(', ')}`)
      return rg
    }
  }
  logger.warn(`tool-fs-search: ripgrep is not runnable in the bash executor (tried ${candidates.join(', ')}); glob and grep are not registered`)
  return undefined
}
