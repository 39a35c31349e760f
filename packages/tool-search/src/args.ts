// The model-facing argument schema: tool_search(query, max_results?).
import { z } from 'zod'
import { parseQuery } from './query.js'

/** How many tools a keyword search returns when the call does not say; Claude Code's ToolSearchTool default. */
export const DEFAULT_MAX_RESULTS = 5

/** The most a call may ask for. */
export const MAX_RESULTS_CEILING = 50

/** tool_search(query, max_results?). */
export const ToolSearchArgs = z.strictObject({
  query: z
    .string()
    .regex(/\S/, 'is empty: give keywords, or select:NAME[,NAME...] to load tools by exact name')
    .refine(namesAToolIfSelecting, { message: 'select: names no tool: list exact tool names after it, separated by commas' })
    .describe(
      'select:NAME[,NAME...] loads those tools by exact name; anything else is keywords matched against tool names, descriptions and search hints, where +word must match.',
    ),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(MAX_RESULTS_CEILING)
    .optional()
    .describe(`How many tools a keyword search returns at most. Default: ${DEFAULT_MAX_RESULTS}.`),
})

/** A tool_search call's validated arguments. */
export type ToolSearchArgs = z.output<typeof ToolSearchArgs>

function namesAToolIfSelecting(query: string): boolean {
  const parsed = parseQuery(query)
  return parsed.mode === 'keywords' || parsed.names.length > 0
}
