// Deferred tools (docs/design.md#deferred-tools): which tools wait for tool_search, and what a session hears of them.
import { CoreError } from './errors.js'
import type { PromptSection } from './services.js'
import type { ToolDefinition } from './tool.js'

/** The name of the tool that loads deferred tools; it is never deferred itself. */
export const TOOL_SEARCH_TOOL_NAME = 'tool_search'

/**
 * Whether a tool's schema waits until tool_search loads it, decided in Claude Code's order: `alwaysLoad`
 * never waits; an MCP tool does (it serves one workflow of many); the tool that loads the others never
 * does; any other tool does when it sets `shouldDefer`.
 */
export function isDeferredTool(tool: Pick<ToolDefinition, 'name' | 'alwaysLoad' | 'isMcp' | 'shouldDefer'>): boolean {
  if (tool.alwaysLoad) return false
  if (tool.isMcp) return true
  if (tool.name === TOOL_SEARCH_TOOL_NAME) return false
  return tool.shouldDefer
}

/**
 * How many bytes of deferred tools' names tool_search's listing carries, unless configured: about 60
 * names, enough to show a model what kinds of tool there are, while 10,000 upstream tools' names would
 * be 227 KB of every first tools/list (docs/design.md#the-listing-of-deferred-tools-is-bounded).
 */
export const UNLOADED_NAMES_MAX_BYTES = 2048

/** The most MCP servers named after the names that did not fit; the rest are counted. */
const SERVERS_NAMED_MAX = 20

/**
 * The prompt section, about tool_search, that names the deferred tools a session has not loaded: names
 * until the next would pass `maxBytes`, then how many more there are and which MCP servers they come
 * from (`mcp__<server>__…`), so a model knows to search rather than guess.
 */
export function unloadedToolsSection(names: readonly string[], maxBytes = UNLOADED_NAMES_MAX_BYTES): PromptSection {
  const shown: string[] = []
  let bytes = 0
  for (const name of names) {
    bytes += new TextEncoder().encode(name).length + 2
    if (bytes > maxBytes) break
    shown.push(name)
  }
  const rest = names.slice(shown.length)
  const intro = `Deferred tools not loaded yet (names only; load one with ${TOOL_SEARCH_TOOL_NAME} before calling it)`
  const text =
    rest.length === 0
      ? `${intro}: ${shown.join(', ')}.`
      : `${intro}: ${[...shown, `${shown.length === 0 ? '' : 'and '}${rest.length} more${fromServers(rest)}`].join(', ')}; ${TOOL_SEARCH_TOOL_NAME} finds them by keyword.`
  return { id: 'core/deferred-tools', tool: TOOL_SEARCH_TOOL_NAME, text }
}

/** Which MCP servers (`mcp__<server>__…`) the names not shown come from, for the model to search by. */
function fromServers(rest: readonly string[]): string {
  const servers = [...new Set(rest.flatMap((name) => /^mcp__(.+?)__/.exec(name)?.[1] ?? []))]
  if (servers.length === 0) return ''
  const others = servers.length > SERVERS_NAMED_MAX ? ` and ${servers.length - SERVERS_NAMED_MAX} more` : ''
  return ` from the MCP servers ${servers.slice(0, SERVERS_NAMED_MAX).join(', ')}${others}`
}

/** The error for a call to a deferred tool its session has not loaded: it says how to load it. */
export function notLoadedError(name: string): CoreError {
  return new CoreError(
    'TOOL_NOT_LOADED',
    `${name} is a deferred tool not loaded in this session; load it with ${TOOL_SEARCH_TOOL_NAME} (query "select:${name}"), then call it again`,
  )
}
