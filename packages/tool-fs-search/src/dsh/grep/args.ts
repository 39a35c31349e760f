// The grep tool's model-facing arguments: grep(pattern, path?, include?).
import { z } from 'zod'
import { grepPattern, modelString, PATH_MAX_CHARS, wellFormed } from '../../engine/model-string.js'
import { includeProblem } from '../../engine/grep/include.js'

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

/** grep(pattern, path?, include?): the minimal shape of docs/design.md#the-search-tools. */
export const GrepArgs = z.strictObject({
  pattern: grepPattern().describe('Regular expression (ripgrep syntax) to search file contents for.'),
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

/** A validated grep call. */
export type GrepArgs = z.output<typeof GrepArgs>
