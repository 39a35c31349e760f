// resources/*: spilled results listed, templated and read back in full through the harness's spill store.
import { errorMessage, isHarnessError, type SpillStore } from '@dsh/core'
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, specTypeSchemas, type Server } from '@modelcontextprotocol/server'
import { SPILL_URI_TEMPLATE, type SpillLinks } from './spill-links.js'
import { ERROR_CODE_META } from './tool-call.js'

/**
 * Answers the resource requests from the links this server issued, reading texts from the harness's
 * spill store. Each handler names the spec's params schema, so a wrongly typed request (a `uri` that is
 * a number) is Invalid params (-32602), not the internal error the SDK makes of a failed check of its
 * own (docs/design.md#bad-input-on-the-transport).
 */
export function registerSpillResources(server: Server, links: SpillLinks, store: SpillStore | undefined): void {
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
    resources: links.list().map(({ type: _type, ...resource }) => resource),
  }))
  const read = { params: specTypeSchemas.ReadResourceRequestParams, result: specTypeSchemas.ReadResourceResult }
  server.setRequestHandler('resources/read', read, async ({ uri }) => {
    const locator = links.locator(uri)
    if (locator === undefined || store === undefined) {
      throw new ResourceNotFoundError(uri, `no result was spilled under ${uri} by this server; use a resource_link a tool call returned`)
    }
    try {
      return { contents: [{ uri, mimeType: 'text/plain', text: await store.readText(locator) }] }
    } catch (error) {
      // The store words what went wrong (retention removed the file, say) and what to do next.
      const message = errorMessage(error)
      const code = isHarnessError(error) ? { [ERROR_CODE_META]: error.code } : {}
      throw new ProtocolError(ProtocolErrorCode.InternalError, `cannot read ${uri}: ${message}`, { uri, ...code })
    }
  })
}
