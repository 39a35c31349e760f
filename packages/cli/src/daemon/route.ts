// Which calls the thin client hands to the warm server, and whether the user turned it off.
import { parseArgs } from 'node:util'
import { COMMON_OPTIONS } from '../command-line.js'

/**
 * The commands the server runs: the searches and reads whose start a user waits on. Not `dsh mcp`
 * (a long-lived server of its own, which reads stdin), not `dsh completion` (run once, at shell
 * set-up), nor anything else: a command not named here runs in process, where it always could.
 */
export const SERVED_COMMANDS: ReadonlySet<string> = new Set(['grep', 'glob', 'read', 'tool-search', 'Grep', 'Glob', 'Read'])

/** The environment variable that turns the server off (any value but empty or 0), as `--no-daemon` does. */
export const NO_DAEMON_ENV = 'DSH_NO_DAEMON'

/**
 * Whether a command line goes to the server: its command (the first positional, as readCommandLine
 * finds it) is served, and neither `--no-daemon` (before `--`) nor DSH_NO_DAEMON says no. A line that
 * is read wrongly here only runs in process, where it prints the same.
 */
export function servedCall(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): boolean {
  const off = env[NO_DAEMON_ENV]
  if (off !== undefined && off !== '' && off !== '0') return false
  const { tokens } = parseArgs({ args: [...argv], options: COMMON_OPTIONS, allowPositionals: true, strict: false, tokens: true })
  if (tokens.some((token) => token.kind === 'option' && token.name === 'no-daemon')) return false
  const first = tokens.find((token) => token.kind === 'positional')
  return first?.kind === 'positional' && SERVED_COMMANDS.has(first.value)
}
