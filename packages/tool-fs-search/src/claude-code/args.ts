// Claude Code's Grep arguments (docs/design.md#claude-codes-tool-surface): its thirteen parameter names and types.
import { z } from 'zod'
import { grepPattern, modelString, PATH_MAX_CHARS, wellFormed } from '../engine/model-string.js'
import { globListProblem } from './globs.js'

/** The most context lines a call may ask for on either side; more would only fill the raw output cap. */
export const CONTEXT_MAX_LINES = 100_000

/** What `head_limit` means when a call does not give it: Claude Code's GrepTool default. */
export const DEFAULT_HEAD_LIMIT = 250

// Seed 002's numbers are JSON Schema numbers, not integers: whole numbers are checked, not typed.
const lines = (what: string) =>
  z
    .number()
    .min(0, `${what} must not be negative`)
    .max(CONTEXT_MAX_LINES, `${what} must be at most ${CONTEXT_MAX_LINES}`)
    .refine(Number.isInteger, `${what} must be a whole number of lines`)
    .optional()

// A count of entries: a page can hold no more than `inlineMaxBytes` allows, so a huge one is simply all.
const entries = (what: string) =>
  z.number().min(0, `${what} must not be negative`).refine(Number.isSafeInteger, `${what} must be a whole number below 2^53`).optional()

/** The output modes, as Claude Code names them. */
export const OUTPUT_MODES = ['content', 'files_with_matches', 'count'] as const

/** One output mode. */
export type OutputMode = (typeof OUTPUT_MODES)[number]

/** Grep with Claude Code's parameters; `-n` defaults to true and `output_mode` to files_with_matches, as there. */
export const ClaudeGrepArgs = z.strictObject({
  pattern: grepPattern().describe('The regular expression to search file contents for (ripgrep syntax).'),
  path: modelString('path', PATH_MAX_CHARS)
    .optional()
    .describe('File or directory to search, absolute or relative to the working directory. Default: the working directory.'),
  glob: modelString('glob', PATH_MAX_CHARS)
    .superRefine(wellFormed('glob'))
    .superRefine((value, ctx) => {
      const problem = globListProblem(value)
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
    })
    .optional()
    .describe(
      'Globs that filter the files searched, e.g. "*.js", "*.{ts,tsx}" or "src/**/*.ts"; several separated by spaces or commas; a leading "!" excludes.',
    ),
  output_mode: z
    .enum(OUTPUT_MODES)
    .optional()
    .describe(
      '"files_with_matches" (default): the files that match, newest modified first; "count": matches per file; "content": the matching lines.',
    ),
  '-B': lines('-B').describe('Lines of context before each match (content mode).'),
  '-A': lines('-A').describe('Lines of context after each match (content mode).'),
  '-C': lines('-C').describe('Lines of context before and after each match (content mode); alias of context.'),
  context: lines('context').describe('Lines of context before and after each match (content mode).'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode). Default: true.'),
  '-i': z.boolean().optional().describe('Match case-insensitively.'),
  type: modelString('type', 64).optional().describe('Search only files of this ripgrep type, e.g. "js", "py", "rust"; narrower than glob.'),
  head_limit: entries('head_limit').describe(
    `Show at most this many entries (lines, files or counts). Default: ${DEFAULT_HEAD_LIMIT}; 0: as many as the page holds.`,
  ),
  offset: entries('offset').describe(
    'Skip this many entries of the complete result first: the offset a capped page says to continue from.',
  ),
  multiline: z.boolean().optional().describe('Let the pattern span lines, and "." match newlines (rg -U --multiline-dotall).'),
})

/** A validated Claude Code Grep call. */
export type ClaudeGrepArgs = z.output<typeof ClaudeGrepArgs>

/** The context a call asks for: `-A`/`-B` win over `-C`/`context` on their side, as in rg. */
export function contextLines(args: ClaudeGrepArgs): { before: number; after: number } {
  const around = args['-C'] ?? args.context ?? 0
  return { before: args['-B'] ?? around, after: args['-A'] ?? around }
}
