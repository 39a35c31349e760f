// The tool_search tool: select by name or rank by keyword, load the matches for the calling session, say what loaded.
import { defineTool, TOOL_SEARCH_TOOL_NAME, type ToolCatalog, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { DEFAULT_MAX_RESULTS, ToolSearchArgs } from './args.js'
import { formatSearchResult } from './format.js'
import { TOOL_SEARCH_DESCRIPTION } from './prompts.js'
import { parseQuery } from './query.js'
import type { ScoredTool, SearchableTool, ToolRanker } from './rank.js'
import { rankerFor, type Scoring } from './scoring.js'

/**
 * What a tool_search call returns as its value (never sent to a model): the tools it loaded, in result
 * order, with their scores and the terms that earned them when keywords ranked them, and the MCP
 * servers still connecting.
 */
export type ToolSearchValue =
  | { mode: 'select'; matches: { name: string }[]; unknown: string[]; pendingServers: string[] }
  | { mode: 'keywords'; matches: ScoredTool[]; pendingServers: string[] }

/** Runs one tool_search call: the matches are loaded for the call's session, when it has one. */
export function executeToolSearch(
  catalog: ToolCatalog,
  ranker: (tools: readonly SearchableTool[]) => ToolRanker,
  args: ToolSearchArgs,
  exec: ToolExecContext,
): ToolOutput {
  const query = parseQuery(args.query)
  const pendingServers = catalog.pendingServers()
  const value: ToolSearchValue =
    query.mode === 'select'
      ? {
          mode: 'select',
          matches: query.names.filter((name) => catalog.get(name) !== undefined).map((name) => ({ name })),
          unknown: query.names.filter((name) => catalog.get(name) === undefined),
          pendingServers,
        }
      : {
          mode: 'keywords',
          matches: ranker(catalog.deferred()).rank(query, args.max_results ?? DEFAULT_MAX_RESULTS),
          pendingServers,
        }
  const names = value.matches.map((match) => match.name)
  // Without a session nothing is deferred: every tool is listed and callable already.
  const sessionId = exec.agent?.session.header.id
  if (sessionId !== undefined) catalog.loadDeferred(sessionId, names)
  const content = formatSearchResult({
    loaded: names.map((name) => ({ name, description: catalog.get(name)!.description })),
    unknown: value.mode === 'select' ? value.unknown : [],
    pendingServers,
  })
  return { content, value }
}

/**
 * The tool_search tool over a catalog: read-only, safe beside other calls, and never deferred itself.
 * Keywords are ranked by `scoring` (docs/design.md#deferred-tools).
 */
export function createToolSearchTool(catalog: ToolCatalog, scoring: Scoring = 'rarity') {
  const ranker = rankerFor(scoring)
  return defineTool({
    name: TOOL_SEARCH_TOOL_NAME,
    description: TOOL_SEARCH_DESCRIPTION,
    parameters: ToolSearchArgs,
    isReadOnly: true,
    isConcurrencySafe: true,
    execute: (args, exec) => Promise.resolve(executeToolSearch(catalog, ranker, args, exec)),
  })
}
