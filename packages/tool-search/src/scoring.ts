// Which scorer ranks a keyword query: the config's `scoring`, each scorer reading a set of tools once.
import { createClaudeCodeRanker } from './claude-code-rank.js'
import { cachedRanker, type SearchableTool, type ToolRanker } from './rank.js'
import { createRarityRanker } from './rarity-rank.js'

/** The scorers: `rarity` (BM25F, the default) or `claude-code` (the seed's point table, as Claude Code ranks). */
export const SCORINGS = ['rarity', 'claude-code'] as const

/** A scorer's name. */
export type Scoring = (typeof SCORINGS)[number]

const BUILDERS: Record<Scoring, (tools: readonly SearchableTool[]) => ToolRanker> = {
  rarity: createRarityRanker,
  'claude-code': createClaudeCodeRanker,
}

/** The ranker for the tools given, rebuilt only when they differ from the last call's. */
export function rankerFor(scoring: Scoring): (tools: readonly SearchableTool[]) => ToolRanker {
  return cachedRanker(BUILDERS[scoring])
}
