// tools/list and tools/call: the session's tools, each call run in the session's cwd under the request's signal.
import type { ToolRegistry, ToolResult, ToolResultView } from '@dsh/core'
import {
  ProtocolError,
  ProtocolErrorCode,
  specTypeSchemas,
  type CallToolResult,
  type ContentBlock,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server'
import type { SessionCwd } from './session-cwd.js'
import type { SpillLinks } from './spill-links.js'
import { toMcpTool } from './tool-listing.js'
import { forwardedCallResult } from './upstream/forwarded.js'
import { hostCallOf, withHostCall } from './upstream/host.js'
import { frontedToolFields } from './upstream/upstream-tool.js'

/** The `_meta` key a failed call's error code rides under, e.g. `{ "dsh/errorCode": "SEARCH_INVALID_PATTERN" }`. */
export const ERROR_CODE_META = 'dsh/errorCode'

/** What the tool handlers need. */
export interface ToolHandlerDeps {
  registry: ToolRegistry
  /** The session id: it owns the results the calls spill. */
  session: string
  cwd: SessionCwd
  links: SpillLinks
  /** Tells the host the tool list changed, when it did (a call loaded deferred tools). */
  announceToolList: () => Promise<void>
  /** Whether the search card's MCP App page is served, which tools with a result view then declare. */
  app: boolean
}

/**
 * Answers tools/list with the session's listing (deferred tools only once tool_search loaded them) and
 * tools/call; the returned function resolves once every call still running has settled. A wrongly
 * typed request is Invalid params (-32602): tools/list names the spec's params schema for it, and the
 * SDK checks tools/call's params itself (arguments that are no object among them).
 */
export function registerToolHandlers(server: Server, deps: ToolHandlerDeps): () => Promise<void> {
  const running = new Set<Promise<unknown>>()
  const list = { params: specTypeSchemas.PaginatedRequestParams, result: specTypeSchemas.ListToolsResult }
  server.setRequestHandler('tools/list', list, () => ({
    tools: deps.registry
      .listFor(deps.session)
      .map((listing) => toMcpTool(listing, deps.app, frontedToolFields(deps.registry.get(listing.name)))),
  }))
  // The SDK runs each request's handler as it arrives, so calls overlap; nothing here serializes them.
  server.setRequestHandler('tools/call', (request, ctx) => {
    const { name, arguments: args = {}, _meta: meta } = request.params
    // A forwarded call finds the host through this: its progress and its upstream's requests go back to it.
    const host = hostCallOf(server, request.params, ctx)
    const forward = () => callTool(deps, { name, args, meta, requestId: ctx.mcpReq.id }, ctx.mcpReq.signal)
    const call = withHostCall(host, forward).then(async (result) => {
      await deps.announceToolList()
      return result
    })
    running.add(call)
    void call.finally(() => running.delete(call)).catch(() => undefined)
    return call
  })
  return async () => {
    await Promise.allSettled([...running])
  }
}

/** A tools/call's params: the tool, its arguments, and the request's `_meta` (a 2026-07-28 request's names its workspace). */
interface ToolCall {
  name: string
  args: unknown
  meta: Record<string, unknown> | undefined
  requestId: RequestId
}

async function callTool(deps: ToolHandlerDeps, { name, args, meta, requestId }: ToolCall, signal: AbortSignal): Promise<CallToolResult> {
  if (deps.registry.get(name) === undefined) {
    // MCP makes an unknown tool a protocol error; the registry's message names the tools there are.
    const { content } = await deps.registry.execute(name, args)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, content, { [ERROR_CODE_META]: 'TOOL_NOT_FOUND' })
  }
  const asked = deps.cwd.current({ signal, meta, requestId })
  // A tool that only finds or forwards tools runs without a workspace; one that searches fails first.
  const cwd = deps.registry.get(name)!.usesWorkspace ? await asked : await asked.catch(() => undefined)
  const header = { id: deps.session, ...(cwd === undefined ? {} : { cwd }) }
  const result = await deps.registry.execute(name, args, { signal, agent: { session: { header } } })
  return forwardedCallResult(result) ?? toCallToolResult(result, deps.links, deps.registry.present(name, args, result))
}

/**
 * A registry result as MCP content: exactly the model-facing text, a link to the complete result when
 * the text is a capped page of it, and a failed call's code in `_meta`; the view `registry.present`
 * builds (the search card) as `structuredContent`, which the tool's `outputSchema` describes.
 */
function toCallToolResult(result: ToolResult, links: SpillLinks, view: ToolResultView | undefined): CallToolResult {
  const content: ContentBlock[] = [{ type: 'text', text: result.content }]
  if (result.isError) return { content, isError: true, _meta: { [ERROR_CODE_META]: result.errorCode } }
  if (result.spilledTo !== undefined) content.push(links.link(result.spilledTo))
  return { content, isError: false, ...(view === undefined ? {} : { structuredContent: { ...view } }) }
}
