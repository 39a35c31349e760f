// The search card as an MCP App: the `ui://` resource grep and glob declare, whose page renders their structuredContent.
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server'
import type { Resource } from '@modelcontextprotocol/server'

/** The resource a tool with a search card declares: one page for every such tool. */
export const SEARCH_CARD_APP_URI = 'ui://dsh/search-card.html'

/** The resource as `resources/list` shows it. */
export const SEARCH_CARD_APP_RESOURCE: Resource = {
  uri: SEARCH_CARD_APP_URI,
  name: 'search-card',
  title: 'Search card',
  description: "Renders a grep or glob call's structuredContent as per-file matches or a path list; a click reads the file.",
  mimeType: RESOURCE_MIME_TYPE,
}

/**
 * A tool's `_meta` naming the App page, in the MCP Apps form (`ui.resourceUri`) and the earlier
 * `ui/resourceUri` key older hosts read, as ext-apps' `registerAppTool` writes both.
 */
export function searchCardAppToolMeta(): Record<string, unknown> {
  return { ui: { resourceUri: SEARCH_CARD_APP_URI }, [RESOURCE_URI_META_KEY]: SEARCH_CARD_APP_URI }
}
