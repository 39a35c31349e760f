// The one place a shell string is built from values.

// The bash seam (docs/design.md#the-bash-seam) takes a command string, so every value (the rg path, a
// model's pattern, path or include) is quoted here and nowhere else.

// Words made only of these characters mean the same quoted or not in bash: no expansion, globbing,
// assignment (`=`), tilde, brace, history or job-spec syntax. Anything else is single-quoted.
const PLAIN_WORD = /^[A-Za-z0-9_/.,:@+-]+$/

/**
 * Quotes one argument for a POSIX shell. Single quotes keep every byte literal; an embedded `'` is
 * closed, escaped and reopened (`'\''`), which every POSIX shell reads the same way.
 */
export function quoteShellArg(value: string): string {
  if (value.includes('\0')) throw new RangeError('a shell argument cannot contain a NUL byte')
  if (PLAIN_WORD.test(value)) return value
  return `'${value.replaceAll("'", "'\\''")}'`
}

/** Joins argv into one command line whose words are exactly `argv`. */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(quoteShellArg).join(' ')
}
