// Reading rg's stderr: the errors it names, an excerpt for a message, and a rejected pattern.
import type { BashRunResult } from '@dsh/core'

/** The error lines rg printed, without its `rg: ` prefix. */
export function rgErrorLines(run: BashRunResult): string[] {
  return run.stderr.text
    .split('\n')
    .filter((line) => line.startsWith('rg: '))
    .map((line) => line.slice(4))
}

/** The last lines of stderr, for a failure message. */
export function stderrExcerpt(run: BashRunResult): string {
  const text = run.stderr.text.trim()
  if (text === '') return '(rg printed no error)'
  const lines = text.split('\n')
  const tail = lines.slice(-8).join('\n')
  return lines.length > 8 || run.stderr.truncated ? `…${tail}` : tail
}

// How rg's own messages begin when it rejects a regex, a glob, or a type definition built from
// `include`. Matched as line prefixes: a path named "the literal" must not read as a pattern error.
const PATTERN_ERRORS = [
  'rg: regex parse error',
  'rg: error parsing glob',
  'rg: the literal',
  'rg: invalid definition',
  'rg: compiled regex exceeds size limit',
]

/** True when rg's stderr says the pattern or include was rejected (rg then searches nothing). */
export function isPatternError(run: BashRunResult): boolean {
  return run.stderr.text.split('\n').some((line) => PATTERN_ERRORS.some((prefix) => line.startsWith(prefix)))
}
