// Keyword ranking over the deferred tools, with Claude Code's ToolSearchTool weights (docs/design.md#deferred-tools).
import type { ToolDefinition } from '@dsh/core'
import { compactTerm, parseToolName, type NameWords } from './tool-name.js'
import { containsWord } from './word-match.js'

/**
 * Points a term earns a tool, per field it matches (Claude Code's ToolSearchTool). An MCP tool's name
 * weighs more because its words include the server's, and "slack" or "github" is the commonest query.
 */
export const TERM_SCORES = {
  namePart: 10,
  mcpNamePart: 12,
  partialNamePart: 5,
  mcpPartialNamePart: 6,
  searchHint: 4,
  fullName: 3,
  description: 2,
} as const

/** What search reads of a tool. */
export type SearchableTool = Pick<ToolDefinition, 'name' | 'description' | 'searchHint' | 'isMcp'>

/** A tool a keyword search found, with its score over every term. */
export interface ScoredTool {
  name: string
  score: number
}

/** The keywords of a query, as `parseQuery` reads them. */
export interface Keywords {
  terms: readonly string[]
  required: readonly string[]
}

/**
 * The best `maxResults` tools for the keywords: a tool scoring on no term is dropped, and so is one that
 * a required term does not match. A term that is a tool's exact name puts that tool first; then higher
 * scores come first, and equal scores by name.
 */
export function rankTools(tools: readonly SearchableTool[], keywords: Keywords, maxResults: number): ScoredTool[] {
  return (
    tools
      .map((tool) => {
        const fields = searchFields(tool)
        const required = keywords.required.every((term) => scoreTerm(fields, term) > 0)
        const score = keywords.terms.reduce((sum, term) => sum + scoreTerm(fields, term), 0)
        const named = keywords.terms.includes(tool.name.toLowerCase())
        return { name: tool.name, score, named, kept: required && score > 0 }
      })
      .filter((entry) => entry.kept)
      // Tool names are unique, so the last key never ties: the order does not depend on the input's.
      .sort((a, b) => Number(b.named) - Number(a.named) || b.score - a.score || (a.name < b.name ? -1 : 1))
      .slice(0, maxResults)
      .map(({ name, score }) => ({ name, score }))
  )
}

/** A tool's fields as terms are matched against them: lower case, the name split into words. */
interface SearchFields extends NameWords {
  isMcp: boolean
  hint: string
  description: string
}

function searchFields(tool: SearchableTool): SearchFields {
  return {
    ...parseToolName(tool.name),
    isMcp: tool.isMcp,
    hint: tool.searchHint?.toLowerCase() ?? '',
    description: tool.description.toLowerCase(),
  }
}

/** One term's points: the best of the name tiers, plus the hint's and the description's. */
function scoreTerm(fields: SearchFields, term: string): number {
  return (
    nameScore(fields, term) +
    (containsWord(fields.hint, term) ? TERM_SCORES.searchHint : 0) +
    (containsWord(fields.description, term) ? TERM_SCORES.description : 0)
  )
}

function nameScore(fields: SearchFields, term: string): number {
  if (fields.parts.includes(term)) return fields.isMcp ? TERM_SCORES.mcpNamePart : TERM_SCORES.namePart
  if (fields.parts.some((part) => part.includes(term))) return fields.isMcp ? TERM_SCORES.mcpPartialNamePart : TERM_SCORES.partialNamePart
  // A term written as a compound (send_message, sendMessage) or spanning words matches no single part.
  const compact = compactTerm(term)
  return compact !== '' && fields.compact.includes(compact) ? TERM_SCORES.fullName : 0
}
