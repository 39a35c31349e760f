// createDshMcpServer: a loaded harness's tools, and the results they spill, as one MCP server.
import { errorMessage, type Harness, type Logger } from '@dsh/core'
import { Server } from '@modelcontextprotocol/server'
import { fixedCwd, followClientRoots, requestCwd } from './session-cwd.js'
import { SpillLinks } from './spill-links.js'
import { registerSpillResources } from './spill-resources.js'
import { registerToolHandlers } from './tool-call.js'
import { toolListAnnouncer } from './tool-list-changes.js'

/** What an MCP server over a harness needs. */
export interface DshMcpOptions {
  /** The loaded harness whose registry is served. */
  harness: Harness
  /** The session cwd the host chose (`--cwd`); when given, client roots are ignored. */
  cwd?: string
  /**
   * Where calls run when `cwd` is not given, the client names no workspace and the config sets no
   * `mcp.workspace`: an embedder's explicit choice. Undefined (as `dsh mcp` leaves it, on stdio and
   * HTTP alike: the directory a server happens to start in is nobody's choice), such a call fails
   * with Invalid params saying how to name one.
   */
  fallbackCwd?: string | undefined
  /** The session id; it owns the results calls spill. */
  session: string
  /** The server's name and version, as `initialize` reports them. */
  name: string
  version: string
  /** Where the server reports trouble: stderr, since stdout carries JSON-RPC only. */
  logger: Logger
  /**
   * The search card's MCP App page (the CLI's `renderSearchCardAppPage`). Given, it is served as
   * `ui://dsh/search-card.html` and every tool whose calls return a search card declares it.
   */
  searchCardAppHtml?: string | undefined
  /**
   * Tools that come and go while the server runs (an upstream gateway's): on each change the server
   * sends notifications/tools/list_changed when its session's listing differs from the one it last
   * announced.
   */
  toolChanges?: {
    onToolsChanged(listener: () => void): () => void
    /** Told of this server, so the gateway's upstreams can reach its host between calls (roots/list); returns the detach. */
    attachHost?(server: Server): () => void
  }
}

/**
 * A server, a way to wait until the calls it was running have settled (after a close aborted them), and
 * `release`, which ends its session: the registry forgets what the session loaded.
 */
export interface DshMcpServerParts {
  server: Server
  callsSettled: () => Promise<void>
  release: () => void
}

/**
 * What a serving entry may hand a server besides the public options: a spill-link table that outlives
 * the server (a 2026-07-28 session's, whose every request has a server of its own), and the protocol
 * era it serves: a 2026-07-28 (`modern`) server has no roots to follow, so its requests name their
 * workspace in `_meta`. @default era 'legacy'
 */
export interface DshMcpServerInternals {
  links?: SpillLinks
  era?: 'legacy' | 'modern'
  /**
   * A 2026-07-28 server prepares its fixed workspace when it is built; one of many built per request
   * (HTTP's) leaves that to the endpoint, which does it once for the process. @default true
   */
  preparesAhead?: boolean
}

/**
 * The directory a server's calls run in when nothing names another: `--cwd`, else the configured
 * `mcp.workspace`, else the embedder's fallback; undefined when there is none.
 */
export function workspaceAhead(options: DshMcpOptions): string | undefined {
  return options.cwd ?? fallbackOf(options)
}

/** Where a call that names no workspace runs without `--cwd`: the configured `mcp.workspace`, else the embedder's fallback. */
function fallbackOf(options: DshMcpOptions): string | undefined {
  return options.harness.get('mcpTransport')?.workspace ?? options.fallbackCwd
}

/**
 * Makes `dir` ready before the first call there: its content index and watcher, then the search tools'
 * link scan (docs/design.md#a-warm-process-loads-its-index-first); a failure is logged, never thrown.
 */
export function prepareWorkspace(options: DshMcpOptions, dir: string, signal: AbortSignal): void {
  // The search tools' warm-up prepares the index and then their link scan; without them, the index alone.
  const prepared = (options.harness.get('searchWarmUp') ?? options.harness.get('searchIndex'))?.prepare?.({ dir, signal })
  // The search warm-up rejects on a policy that fails to answer or a fault in the code, and a host's
  // own index may reject too: either is logged, and the server serves on.
  void prepared?.catch((error: unknown) => options.logger.warn(`mcp: preparing the workspace ${dir} failed: ${errorMessage(error)}`))
}

/**
 * Adds `handler` to what the server does when it closes, after the handler it has: the SDK's `Server`
 * holds one `onclose`, and the one `buildDshMcpServer` sets (stopping the workspace's prepare) must
 * survive the endpoint's own.
 */
export function addOnClose(server: Server, handler: () => void): void {
  const before = server.onclose
  server.onclose = () => {
    before?.()
    handler()
  }
}

/** Builds the server with the hook `serveMcpStdio` needs to let no call outlive it. */
export function buildDshMcpServer(options: DshMcpOptions & DshMcpServerInternals): DshMcpServerParts {
  // The low-level Server: McpServer would validate arguments against the schema itself, and its
  // messages would replace the registry's, which tell the model how to fix the call.
  // listChanged: tool_search adds deferred tools to the session's listing as it loads them.
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: { listChanged: true }, resources: {} } },
  )
  server.onerror = (error) => options.logger.warn(`mcp: ${error.message}`)
  const links = options.links ?? new SpillLinks(options.session)
  const fallbackCwd = fallbackOf(options)
  // Where a session's calls will run is known before its first call: the content index covering it is
  // loaded meanwhile (docs/design.md#a-warm-process-loads-its-index-first).
  const preparing = new AbortController()
  const onCwd = (dir: string): void => prepareWorkspace(options, dir, preparing.signal)
  // Closed before its session ends (a stdio probe the SDK discards for a 2025 client): nothing is prepared for it.
  server.onclose = () => preparing.abort()
  if (options.era === 'modern') {
    // No handshake: the workspace every call without its own `_meta` runs in is prepared now.
    const ahead = options.preparesAhead === false ? undefined : workspaceAhead(options)
    if (ahead !== undefined) onCwd(ahead)
  } else if (options.cwd !== undefined) server.oninitialized = () => onCwd(options.cwd!)
  const cwd =
    options.cwd !== undefined
      ? fixedCwd(options.cwd)
      : options.era === 'modern'
        ? requestCwd(fallbackCwd)
        : followClientRoots(server, { fallbackCwd, logger: options.logger, onCwd })
  const { registry } = options.harness
  const announceToolList = toolListAnnouncer(server, registry, options.session, options.logger)
  const app = options.searchCardAppHtml !== undefined
  const callsSettled = registerToolHandlers(server, { registry, session: options.session, cwd, links, announceToolList, app })
  registerSpillResources(server, links, options.harness.get('spillStore'), options.searchCardAppHtml)
  const unsubscribe = options.toolChanges?.onToolsChanged(() => void announceToolList())
  const detachHost = options.toolChanges?.attachHost?.(server)
  const release = (): void => {
    preparing.abort()
    unsubscribe?.()
    detachHost?.()
    registry.forgetSession(options.session)
  }
  return { server, callsSettled, release }
}

/** An MCP server (the SDK's `Server`) serving the harness's tools and spilled results; connect it to a transport. */
export function createDshMcpServer(options: DshMcpOptions): Server {
  return buildDshMcpServer(options).server
}
