// Which mtime helper glob runs: GNU find (>= 4.9), else xargs and GNU stat, resolved once in the executor.
import type { BashExecutor, Logger } from '@dsh/core'
import type { MtimeLister } from '../glob/command.js'
import { LOOKUP, runProbe } from './script.js'

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

/**
 * Resolves glob's mtime helpers once, to absolute paths, in the executor's environment; undefined
 * after a warning when neither GNU find (>= 4.9) nor xargs and GNU stat are there.
 */
export async function chooseMtimeLister(bash: BashExecutor, logger: Logger): Promise<MtimeLister | undefined> {
  const { run } = await runProbe(bash, { command: buildMtimeProbeCommand(), what: 'mtime helper' })
  const [helper, first, second] = run.stdout.text.split('\0')
  const absolute = (program: string | undefined): program is string => program?.startsWith('/') === true
  if (run.exitCode === 0 && !run.stdout.truncated) {
    if (helper === 'find' && absolute(first)) return { helper, find: first }
    if (helper === 'stat' && absolute(first) && absolute(second)) return { helper, xargs: first, stat: second }
  }
  logger.warn(
    'tool-fs-search: glob is not registered: it needs GNU find (>= 4.9), or xargs and GNU stat, in the bash executor to order files by modification time',
  )
  return undefined
}
