// `scoring: "claude-code"`: Claude Code's ToolSearchTool point table, as it is (docs/design.md#tool-search-ranks-by-rarity).
import {
  orderCandidates,
  type Candidate,
  type FieldMatch,
  type Keywords,
  type ScoredTool,
  type SearchableTool,
  type ToolRanker,
} from './rank.js'
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

/** A tool's fields as terms are matched against them: lower case, the name split into words. */
interface SearchFields extends NameWords {
  name: string
  isMcp: boolean
  hint: string
  description: string
}

/** The seed's scorer over a set of tools, each tool's fields read once. */
export function createClaudeCodeRanker(tools: readonly SearchableTool[]): ToolRanker {
  const fields = tools.map((tool): SearchFields => ({
    ...parseToolName(tool.name),
    name: tool.name,
    isMcp: tool.isMcp,
    hint: tool.searchHint?.toLowerCase() ?? '',
    description: tool.description.toLowerCase(),
  }))
  return {
    rank(keywords: Keywords, maxResults: number) {
      const candidates: (Candidate & ScoredTool)[] = []
      for (const tool of fields) {
        if (!keywords.required.every((term) => scoreTerm(tool, term).points > 0)) continue
        const terms = keywords.terms.map((term) => ({ term, ...scoreTerm(tool, term) })).filter((term) => term.points > 0)
        const score = terms.reduce((sum, term) => sum + term.points, 0)
        if (score > 0) candidates.push({ name: tool.name, score, terms, named: keywords.terms.includes(tool.name.toLowerCase()) })
      }
      return orderCandidates(candidates, maxResults).map(({ name, score, terms }) => ({ name, score, terms }))
    },
  }
}

/** One term's points: the best of the name tiers, plus the hint's and the description's. */
function scoreTerm(tool: SearchFields, term: string): { points: number; fields: FieldMatch[] } {
  const fields: FieldMatch[] = []
  let points = 0
  const name = nameScore(tool, term)
  if (name !== undefined) {
    points += name.points
    fields.push(name.field)
  }
  if (containsWord(tool.hint, term)) {
    points += TERM_SCORES.searchHint
    fields.push({ field: 'hint', match: 'exact' })
  }
  if (containsWord(tool.description, term)) {
    points += TERM_SCORES.description
    fields.push({ field: 'description', match: 'exact' })
  }
  return { points, fields }
}

function nameScore(tool: SearchFields, term: string): { points: number; field: FieldMatch } | undefined {
  if (tool.parts.includes(term)) {
    return { points: tool.isMcp ? TERM_SCORES.mcpNamePart : TERM_SCORES.namePart, field: { field: 'name', match: 'exact' } }
  }
  if (tool.parts.some((part) => part.includes(term))) {
    return { points: tool.isMcp ? TERM_SCORES.mcpPartialNamePart : TERM_SCORES.partialNamePart, field: { field: 'name', match: 'part' } }
  }
  // A term written as a compound (send_message, sendMessage) or spanning words matches no single part.
  const compact = compactTerm(term)
  if (compact === '' || !tool.compact.includes(compact)) return undefined
  return { points: TERM_SCORES.fullName, field: { field: 'full name', match: 'exact' } }
}
