// The model-facing argument schemas: glob(pattern, path?) and grep(pattern, path?, include?).
import { z } from 'zod'
import { includeProblem } from './grep-command.js'

// A single argv word longer than 128 KiB (Linux MAX_ARG_STRLEN) cannot reach bash at all; these
// limits keep every model value far below it and inside what a person could mean.
const PATTERN_MAX_CHARS = 8192
const PATH_MAX_CHARS = 4096

/** A model-supplied string: not blank, no NUL (it cannot cross an argv), bounded in length. */
function modelString(what: string, maxChars: number) {
  return z
    .string()
    .max(maxChars, `${what} is longer than ${maxChars} characters`)
    .refine((value) => value.trim() !== '', `${what} must not be blank`)
    .refine((value) => !value.includes('\0'), `${what} must not contain a NUL character`)
}

// With the `u` flag a surrogate pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/**
 * Refuses text with a lone surrogate (JSON can carry one): on its way to the executor it is encoded as
 * U+FFFD, so a search for it would silently search for something else. A path may hold one: it then
 * names no file, and the search says so.
 */
function wellFormed(what: string) {
  return (value: string, ctx: z.RefinementCtx): void => {
    const lone = LONE_SURROGATE.exec(value)?.[0]
    if (lone === undefined) return
    const code = lone.charCodeAt(0).toString(16).toUpperCase()
    ctx.addIssue({ code: 'custom', message: `${what} must be valid Unicode: it holds a lone surrogate (U+${code}), which would be searched as U+FFFD` })
  }
}

/** Top-level commas outside `{...}` make a list; commas inside braces are glob alternation. */
function hasTopLevelComma(glob: string): boolean {
  let depth = 0
  for (const char of glob) {
    if (char === '{') depth += 1
    else if (char === '}') depth = Math.max(0, depth - 1)
    else if (char === ',' && depth === 0) return true
  }
  return false
}

/** rg matches no path against a `..` segment, so one after a wildcard would silently match nothing. */
function dotDotAfterWildcard(pattern: string): boolean {
  const segments = pattern.split('/')
  const wildcard = segments.findIndex((segment) => /[*?[\]{}]/.test(segment))
  return wildcard !== -1 && segments.slice(wildcard).includes('..')
}

/** glob(pattern, path?) — seed 000's discovery shape. */
export const GlobArgs = z.strictObject({
  pattern: modelString('pattern', PATH_MAX_CHARS)
    .superRefine(wellFormed('pattern'))
    .refine((value) => !value.startsWith('!'), 'pattern must not start with "!": negated globs are not supported')
    .refine((value) => !dotDotAfterWildcard(value), 'pattern may use ".." only before its first wildcard; put the directory in path')
    .describe('Glob to match file paths against, e.g. "**/*.ts" or "src/**/*.test.ts".'),
  path: modelString('path', PATH_MAX_CHARS)
    .optional()
    .describe('Directory to search from, absolute or relative to the working directory. Default: the working directory.'),
})

/** grep(pattern, path?, include?) — seed 000's minimal shape. */
export const GrepArgs = z.strictObject({
  // Only empty is refused: a run of spaces or a tab is a pattern worth searching for.
  pattern: z
    .string()
    .min(1, 'pattern must not be empty')
    .max(PATTERN_MAX_CHARS, `pattern is longer than ${PATTERN_MAX_CHARS} characters`)
    .refine((value) => !value.includes('\0'), 'pattern must not contain a NUL character')
    .superRefine(wellFormed('pattern'))
    .describe('Regular expression (ripgrep syntax) to search file contents for.'),
  path: modelString('path', PATH_MAX_CHARS)
    .optional()
    .describe('File or directory to search, absolute or relative to the working directory. Default: the working directory.'),
  include: modelString('include', PATH_MAX_CHARS)
    .superRefine(wellFormed('include'))
    .refine((value) => !value.startsWith('!'), 'include must be one positive glob: negated globs ("!…") are not supported')
    .refine((value) => !hasTopLevelComma(value), 'include must be one glob, not a comma-separated list; use braces, e.g. "*.{ts,tsx}"')
    .superRefine((value, ctx) => {
      const problem = includeProblem(value)
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
    })
    .optional()
    .describe(
      'One glob that filters the files of a directory search, e.g. "*.ts" or "*.{ts,tsx}"; without "/" it matches file names at any depth. "src/" or "src/**" searches only the directory src, and so does "src" when that directory exists.',
    ),
})

export type GlobArgs = z.output<typeof GlobArgs>
export type GrepArgs = z.output<typeof GrepArgs>
