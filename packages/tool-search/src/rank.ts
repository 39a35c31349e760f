// What both scorers share: the tools they read, the matches they return, and the order those go in.
import type { ToolDefinition } from '@dsh/core'

/** What search reads of a tool. */
export type SearchableTool = Pick<ToolDefinition, 'name' | 'description' | 'searchHint' | 'isMcp'>

/** Where a term matched a tool, and how closely. */
export interface FieldMatch {
  /** `full name` is the seed scorer's compound tier: the name with its separators removed. */
  field: 'name' | 'hint' | 'description' | 'full name'
  /** `stem` matched the word's stem only; `part` matched inside a name part. */
  match: 'exact' | 'stem' | 'part'
}

/** What one query term earned a tool. */
export interface TermEvidence {
  term: string
  points: number
  fields: FieldMatch[]
}

/** A tool a keyword search found, with its score over every term and the terms that earned it. */
export interface ScoredTool {
  name: string
  score: number
  terms: TermEvidence[]
}

/** The keywords of a query, as `parseQuery` reads them. */
export interface Keywords {
  terms: readonly string[]
  required: readonly string[]
}

/** A scorer over one set of tools, whose fields it read once. */
export interface ToolRanker {
  /**
   * The best `maxResults` tools for the keywords: a tool that scores nothing is dropped, and so is one
   * that a required term does not match. A term that is a tool's exact name puts that tool first; then
   * higher scores come first, and equal scores by name.
   */
  rank(keywords: Keywords, maxResults: number): ScoredTool[]
}

/** A candidate before ordering: `named` when a term is its exact name. */
export interface Candidate {
  name: string
  score: number
  named: boolean
}

/** Scores are rounded to this many decimals, so equal-looking scores are equal and go by name. */
const SCORE_DECIMALS = 1000

/** Rounds a score as it is shown and compared. */
export function roundScore(score: number): number {
  return Math.round(score * SCORE_DECIMALS) / SCORE_DECIMALS
}

/**
 * The first `maxResults` candidates: named tools first, then higher scores, then names. Tool names are
 * unique, so the order never depends on the input's. Only the best are kept while reading, since a
 * common word finds thousands of tools and a call wants five.
 */
export function orderCandidates<C extends Candidate>(candidates: Iterable<C>, maxResults: number): C[] {
  const best: C[] = []
  for (const candidate of candidates) {
    if (best.length === maxResults && compareCandidates(candidate, best[maxResults - 1]!) > 0) continue
    let at = best.length
    while (at > 0 && compareCandidates(candidate, best[at - 1]!) < 0) at--
    best.splice(at, 0, candidate)
    if (best.length > maxResults) best.pop()
  }
  return best
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return Number(b.named) - Number(a.named) || b.score - a.score || (a.name < b.name ? -1 : 1)
}

/**
 * A ranker that reads each tool's fields once per set of tools: a new ranker is built only when the
 * tools differ from the last call's (another tool registered or removed), not on every search.
 */
export function cachedRanker(build: (tools: readonly SearchableTool[]) => ToolRanker): (tools: readonly SearchableTool[]) => ToolRanker {
  let last: { tools: readonly SearchableTool[]; ranker: ToolRanker } | undefined
  return (tools) => {
    if (last === undefined || !sameTools(last.tools, tools)) last = { tools: [...tools], ranker: build(tools) }
    return last.ranker
  }
}

function sameTools(a: readonly SearchableTool[], b: readonly SearchableTool[]): boolean {
  return a.length === b.length && a.every((tool, at) => tool === b[at])
}
