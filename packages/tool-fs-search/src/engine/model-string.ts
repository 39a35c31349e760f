// The checks every model-supplied string passes before it can reach an argv, for both surfaces.
import { z } from 'zod'

// A single argv word longer than 128 KiB (Linux MAX_ARG_STRLEN) cannot reach bash at all; these
// limits keep every model value far below it and inside what a person could mean.
/** The longest grep pattern, in UTF-16 code units. */
export const PATTERN_MAX_CHARS = 8192
/** The longest path, glob pattern or include, in UTF-16 code units. */
export const PATH_MAX_CHARS = 4096

/** A model-supplied string: not blank, no NUL (it cannot cross an argv), bounded in length. */
export function modelString(what: string, maxChars: number) {
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
export function wellFormed(what: string) {
  return (value: string, ctx: z.RefinementCtx): void => {
    const lone = LONE_SURROGATE.exec(value)?.[0]
    if (lone === undefined) return
    const code = lone.charCodeAt(0).toString(16).toUpperCase()
    ctx.addIssue({
      code: 'custom',
      message: `${what} must be valid Unicode: it holds a lone surrogate (U+${code}), which would be searched as U+FFFD`,
    })
  }
}

/**
 * A grep pattern: not blank (docs/design.md#the-search-tools: blank strings are argument errors; the
 * message says how to search for spaces), no NUL, bounded, well-formed.
 */
export function grepPattern() {
  return z
    .string()
    .min(1, 'pattern must not be empty')
    .max(PATTERN_MAX_CHARS, `pattern is longer than ${PATTERN_MAX_CHARS} characters`)
    .refine((value) => value.trim() !== '', 'pattern must not be blank; to search for spaces, use a character class such as "[ ]" or "\\s"')
    .refine((value) => !value.includes('\0'), 'pattern must not contain a NUL character')
    .superRefine(wellFormed('pattern'))
}
