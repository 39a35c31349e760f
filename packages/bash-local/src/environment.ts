/**
 * The environment a command sees: an allowlist of the parent's variables, never the whole of it. A
 * harness process holds API keys (`*_API_KEY`, `*_TOKEN`, `AWS_*`); a model-written command must not
 * read them, and an allowlist keeps that true for names nobody thought to deny.
 */
const PASSED_THROUGH = [
  // Where commands (rg, git) are found.
  'PATH',
  // `~` expansion and per-user tool config (git's ~/.gitconfig, rg's ignore files).
  'HOME',
  // Identity that git, ssh and ls consult when they cannot read the passwd database.
  'USER',
  'LOGNAME',
  // The locale decides how tools decode and print non-ASCII bytes, match case, and sort.
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_ADDRESS',
  'LC_COLLATE',
  'LC_CTYPE',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NAME',
  'LC_NUMERIC',
  'LC_PAPER',
  'LC_TELEPHONE',
  'LC_TIME',
  // Times print in the user's zone, as the user's own shell would show them.
  'TZ',
  // Per-user temp dirs (macOS sets one per login); without it tools fall back to a shared /tmp.
  'TMPDIR',
] as const
// Not passed: TERM (stdout is a pipe a program reads; a terminal type invites escape codes from tools
// that consult it instead of isatty) and SHELL (it names the user's login shell, not the one running).

/** The allowlisted and explicitly named variables of `source`, then the fixed `set` values on top. */
export function scrubEnvironment(
  source: Readonly<Record<string, string | undefined>>,
  extraNames: readonly string[],
  set: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of [...PASSED_THROUGH, ...extraNames]) {
    const value = source[name]
    if (value !== undefined) env[name] = value
  }
  return Object.assign(env, set)
}
