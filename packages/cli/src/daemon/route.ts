// Which calls the thin client hands to the warm server, and whether the user turned it off.
import { parseArgs } from 'node:util'
import { COMMON_OPTIONS } from '../command-line.js'

/**
 * The commands the server runs: the searches and reads whose start a user waits on, and `dsh index`
 * where the server's watcher can update the index without a walk (it hands any other back: see
 * HANDED_BACK). Not `dsh mcp` (a long-lived server of its own, which reads stdin), not `dsh
 * completion` (run once, at shell set-up), nor anything else: a command not named here runs in
 * process, where it always could.
 */
export const SERVED_COMMANDS: ReadonlySet<string> = new Set(['grep', 'glob', 'read', 'tool-search', 'Grep', 'Glob', 'Read', 'index'])

/**
 * Served commands the server may hand back to the client to run in process (CliIo.served): `dsh index`
 * when the server keeps no watcher of that index, so a build's memory and minutes stay in the client.
 */
const HANDED_BACK: ReadonlySet<string> = new Set(['index'])

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
  const tokens = tokensOf(argv)
  if (tokens.some((token) => token.kind === 'option' && token.name === 'no-daemon')) return false
  return SERVED_COMMANDS.has(commandOf(tokens))
}

/** Whether the server may hand the call back (ServerOptions.mayDecline). */
export function mayHandBack(argv: readonly string[]): boolean {
  return HANDED_BACK.has(commandOf(tokensOf(argv)))
}

type Tokens = ReturnType<typeof tokensOf>

function tokensOf(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: COMMON_OPTIONS, allowPositionals: true, strict: false, tokens: true }).tokens
}

/** The command, as readCommandLine finds it: the first positional. */
function commandOf(tokens: Tokens): string {
  const first = tokens.find((token) => token.kind === 'positional')
  return first?.kind === 'positional' ? first.value : ''
}
