// How a registered tool appears in tools/list: its schema, its description with prompt sections, its hints.
import type { ToolListing } from '@dsh/core'
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server'
import { searchCardAppToolMeta } from './search-card-app.js'
import type { FrontedToolFields } from './upstream/upstream-tool.js'

/**
 * One registry listing as an MCP tool. With `app`, a tool whose calls return a search card declares
 * the card's MCP App page; a tool the gateway fronts keeps its upstream's title, icons, annotations,
 * `_meta` and `outputSchema` (docs/design.md#the-gateway).
 */
export function toMcpTool(listing: ToolListing, app = false, fronted?: FrontedToolFields): Tool {
  const own: Tool = {
    name: listing.name,
    title: toolTitle(listing.name),
    description: toolDescription(listing),
    // The registry's JSON Schema as is: it validates calls itself, with the messages a model is meant to read.
    inputSchema: listing.inputSchema as Tool['inputSchema'],
    annotations: toolAnnotations(listing),
    // The view a call's structuredContent carries, for a tool that builds one for every success.
    ...(listing.resultViewSchema === undefined ? {} : { outputSchema: listing.resultViewSchema }),
    ...(app && listing.resultViewSchema !== undefined ? { _meta: searchCardAppToolMeta() } : {}),
  }
  return fronted === undefined ? own : { ...own, ...fronted }
}

/** An MCP host gives the model a tool's description and nothing else, so the prompt sections about it ride along. */
export function toolDescription(listing: ToolListing): string {
  return [listing.description, ...listing.promptSections.map((section) => section.text)].join('\n\n')
}

/** The name as a person reads it in a host's UI: "tool_search" becomes "Tool search". */
export function toolTitle(name: string): string {
  const words = name.split(/[_-]+/).join(' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * The hints MCP defines, only as far as the registry's metadata supports them. A tool that changes
 * nothing can neither destroy anything nor differ on a repeat; for a tool that may write, only its
 * author knows, so MCP's cautious defaults (destructive, not idempotent) stand.
 */
export function toolAnnotations(listing: ToolListing): ToolAnnotations {
  return {
    readOnlyHint: listing.isReadOnly,
    ...(listing.isReadOnly ? { destructiveHint: false, idempotentHint: true } : {}),
    // Our own tools reach only the session's machine; a tool fronted from another MCP server reaches whatever it does.
    ...(listing.isMcp ? {} : { openWorldHint: false }),
  }
}
