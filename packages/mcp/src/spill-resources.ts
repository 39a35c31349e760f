// resources/*: spilled results listed, templated and read back in full through the harness's spill store; the card's App page.
import { errorMessage, isHarnessError, type SpillStore } from '@dsh/core'
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, specTypeSchemas, type Server } from '@modelcontextprotocol/server'
import { SEARCH_CARD_APP_RESOURCE, SEARCH_CARD_APP_URI } from './search-card-app.js'
import { parseSpillUri, SPILL_URI_TEMPLATE, type SpillLinks } from './spill-links.js'
import { ERROR_CODE_META } from './tool-call.js'

/**
 * Answers the resource requests from the links this server issued, and `resources/read` of any
 * `dsh-spill://` link whose result the harness's spill store holds (another `dsh mcp` process over
 * the same store issued it: docs/design.md#spill-links-any-process-can-serve), reading texts from it. Each handler names the spec's params schema, so a wrongly typed request (a `uri` that is
 * a number) is Invalid params (-32602), not the internal error the SDK makes of a failed check of its
 * own (docs/design.md#bad-input-on-the-transport).
 */
export function registerSpillResources(server: Server, links: SpillLinks, store: SpillStore | undefined, appHtml?: string): void {
  const paginated = specTypeSchemas.PaginatedRequestParams
  server.setRequestHandler('resources/templates/list', { params: paginated, result: specTypeSchemas.ListResourceTemplatesResult }, () => ({
    resourceTemplates: [
      {
        uriTemplate: SPILL_URI_TEMPLATE,
        name: 'spilled-result',
        title: 'Spilled tool result',
        description: 'The complete text of a capped tool result; a call links the one it produced.',
        mimeType: 'text/plain',
      },
    ],
  }))
  server.setRequestHandler('resources/list', { params: paginated, result: specTypeSchemas.ListResourcesResult }, () => ({
    resources: [
      ...(appHtml === undefined ? [] : [SEARCH_CARD_APP_RESOURCE]),
      ...links.list().map(({ type: _type, ...resource }) => resource),
    ],
  }))
  const read = { params: specTypeSchemas.ReadResourceRequestParams, result: specTypeSchemas.ReadResourceResult }
  server.setRequestHandler('resources/read', read, async ({ uri }) => {
    if (uri === SEARCH_CARD_APP_URI && appHtml !== undefined) {
      return { contents: [{ uri, mimeType: SEARCH_CARD_APP_RESOURCE.mimeType!, text: appHtml }] }
    }
    const locator = await locateLink(links, store, uri)
    if (locator === undefined) {
      throw new ResourceNotFoundError(
        uri,
        `no result is saved under ${uri} in this server's spill store (retention may have removed it); use a resource_link a tool call returned`,
      )
    }
    try {
      // A locator exists only where a store does.
      return { contents: [{ uri, mimeType: 'text/plain', text: await store!.readText(locator) }] }
    } catch (error) {
      // The store words what went wrong (retention removed the file, say) and what to do next.
      const message = errorMessage(error)
      const code = isHarnessError(error) ? { [ERROR_CODE_META]: error.code } : {}
      throw new ProtocolError(ProtocolErrorCode.InternalError, `cannot read ${uri}: ${message}`, { uri, ...code })
    }
  })
}

/** The locator behind a link this server issued, else one another process issued whose result is in this store. */
async function locateLink(links: SpillLinks, store: SpillStore | undefined, uri: string): Promise<string | undefined> {
  if (store === undefined) return undefined
  const issued = links.locator(uri)
  if (issued !== undefined) return issued
  const named = parseSpillUri(uri)
  return named === undefined ? undefined : store.locate(named.owner, named.name)
}
