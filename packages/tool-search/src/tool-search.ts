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

/**
 * How long a search that finds nothing waits for MCP servers still connecting, in ms, unless configured:
 * past the few seconds a real server takes to start (docs/performance.md#upstream-time-to-ready), and
 * short enough that a server that hangs does not hold the model up long.
 */
export const CONNECTING_WAIT_MS = 5_000

/**
 * Runs one tool_search call: the matches are loaded for the call's session, when it has one. A search
 * that finds nothing while MCP servers are connecting waits for them (at most `connectingWaitMs`) and
 * searches again.
 */
export async function executeToolSearch(
  catalog: ToolCatalog,
  ranker: (tools: readonly SearchableTool[]) => ToolRanker,
  args: ToolSearchArgs,
  exec: ToolExecContext,
  connectingWaitMs = CONNECTING_WAIT_MS,
): Promise<ToolOutput> {
  const query = parseQuery(args.query)
  let value = search(catalog, ranker, query, args)
  const unfound = value.matches.length === 0 || (value.mode === 'select' && value.unknown.length > 0)
  if (unfound && value.pendingServers.length > 0 && connectingWaitMs > 0) {
    await catalog.serversConnected(connectingWaitMs, exec.signal)
    value = search(catalog, ranker, query, args)
  }
  const { pendingServers } = value
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

/** One pass over the catalog as it is. */
function search(
  catalog: ToolCatalog,
  ranker: (tools: readonly SearchableTool[]) => ToolRanker,
  query: ReturnType<typeof parseQuery>,
  args: ToolSearchArgs,
): ToolSearchValue {
  const pendingServers = catalog.pendingServers()
  return query.mode === 'select'
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
}

/**
 * The tool_search tool over a catalog: read-only, safe beside other calls, and never deferred itself.
 * Keywords are ranked by `scoring` (docs/design.md#deferred-tools); a search that finds nothing waits
 * up to `connectingWaitMs` for MCP servers still connecting.
 */
export function createToolSearchTool(catalog: ToolCatalog, scoring: Scoring = 'rarity', connectingWaitMs = CONNECTING_WAIT_MS) {
  const ranker = rankerFor(scoring)
  return defineTool({
    name: TOOL_SEARCH_TOOL_NAME,
    description: TOOL_SEARCH_DESCRIPTION,
    parameters: ToolSearchArgs,
    isReadOnly: true,
    isConcurrencySafe: true,
    usesWorkspace: false,
    execute: (args, exec) => executeToolSearch(catalog, ranker, args, exec, connectingWaitMs),
  })
}
