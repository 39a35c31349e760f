// The glob tool's model-facing arguments: glob(pattern, path?).
import { z } from 'zod'
import { modelString, PATH_MAX_CHARS, wellFormed } from '../../engine/model-string.js'

/** rg matches no path against a `..` segment, so one after a wildcard would silently match nothing. */
function dotDotAfterWildcard(pattern: string): boolean {
  const segments = pattern.split('/')
  const wildcard = segments.findIndex((segment) => /[*?[\]{}]/.test(segment))
  return wildcard !== -1 && segments.slice(wildcard).includes('..')
}

/** glob(pattern, path?): the discovery shape of docs/design.md#the-search-tools. */
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

/** A validated glob call. */
export type GlobArgs = z.output<typeof GlobArgs>
