// The gateway: upstream MCP servers' tools registered beside ours, deferred until tool_search loads them.
import { errorMessage, escapeHiddenCharacters, type Logger, type ToolRegistry } from '@dsh/core'
import type { UpstreamServer } from './config.js'
import { connectUpstream, type UpstreamConnection } from './connect.js'
import { upstreamToolName } from './tool-names.js'
import { defineUpstreamTool, hidesText } from './upstream-tool.js'

/** How long an upstream may take to start, initialize and list its tools, in ms. */
export const UPSTREAM_CONNECT_TIMEOUT_MS = 30_000

/** What `startUpstreamGateway` takes. */
export interface UpstreamGatewayOptions {
  servers: readonly UpstreamServer[]
  /** The harness's registry: tool_search must be registered in it, or nothing would load the upstream tools. */
  registry: ToolRegistry
  /** Where an upstream that fails, exits or lists an unusable tool is reported (stderr, for `dsh mcp`). */
  logger: Logger
  /** How the gateway introduces itself to each upstream. */
  clientInfo: { name: string; version: string }
  /** @default UPSTREAM_CONNECT_TIMEOUT_MS */
  connectTimeoutMs?: number
  /** Connects one upstream; the SDK client by default (a seam for tests of what the gateway does with a connection). */
  connect?: typeof connectUpstream
}

/** The running gateway. */
export interface UpstreamGateway {
  /** Calls `listener` whenever upstream tools were registered or removed; returns the unsubscribe. */
  onToolsChanged(listener: () => void): () => void
  /** Resolves once every upstream has connected or failed. */
  readonly settled: Promise<void>
  /** Ends every upstream (a stdio one's process with it), connected or still connecting, and resolves once they have ended. */
  close(): Promise<void>
}

/**
 * Connects to every upstream at once, without waiting: each counts as connecting for tool_search until
 * it is up; then its tools are registered as `mcp__<server>__<tool>`. One that fails to connect is
 * reported and left out; one that exits later is reported and its tools are removed. Every change is
 * announced, so a server can tell its host the list changed.
 */
export function startUpstreamGateway(options: UpstreamGatewayOptions): UpstreamGateway {
  const { registry, logger } = options
  const connect = options.connect ?? connectUpstream
  const listeners = new Set<() => void>()
  const changed = (): void => {
    for (const listener of listeners) listener()
  }
  const stop = new AbortController()
  const connections = new Set<UpstreamConnection>()

  const start = async (server: UpstreamServer): Promise<void> => {
    const connection = await connect(server, {
      clientInfo: options.clientInfo,
      timeoutMs: options.connectTimeoutMs ?? UPSTREAM_CONNECT_TIMEOUT_MS,
      signal: stop.signal,
    })
    // Closed while the handshake finished: end it here, since close() did not see it.
    if (stop.signal.aborted) return connection.close()
    connections.add(connection)
    const names = registerTools(server.name, connection, registry, logger)
    connection.onClosed(() => {
      connections.delete(connection)
      for (const name of names) registry.unregister(name)
      logger.warn(`upstream ${server.name} exited; its ${names.length} tools are removed`)
      changed()
    })
    changed()
  }

  const settled = Promise.all(
    options.servers.map(async (server) => {
      const started = start(server)
      registry.awaitServer(server.name, started)
      try {
        await started
      } catch (error) {
        if (!stop.signal.aborted)
          logger.warn(`upstream ${server.name} failed to connect: ${errorMessage(error)}; its tools are not available`)
      }
    }),
  ).then(() => undefined)

  return {
    onToolsChanged(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    settled,
    async close() {
      stop.abort()
      await Promise.all([...connections].map((connection) => connection.close()))
      await settled
    },
  }
}

/**
 * Registers a connection's tools and returns their names; a tool that cannot be registered is reported
 * and skipped, and one whose text hid something is reported too, since only a server up to no good (or
 * badly broken) writes escape sequences or invisible characters into a tool.
 */
function registerTools(server: string, connection: UpstreamConnection, registry: ToolRegistry, logger: Logger): string[] {
  const names: string[] = []
  const seen = new Set<string>()
  for (const tool of connection.tools) {
    const quoted = quote(tool.name)
    if (seen.has(tool.name)) {
      logger.warn(`upstream ${server} lists the tool ${quoted} twice; the first is kept`)
      continue
    }
    seen.add(tool.name)
    const name = upstreamToolName(server, tool.name, (candidate) => registry.get(candidate) !== undefined)
    try {
      registry.register(defineUpstreamTool(server, name, tool, connection))
      names.push(name)
    } catch (error) {
      logger.warn(`upstream ${server}: tool ${quoted} is left out: ${errorMessage(error)}`)
      continue
    }
    if (hidesText(tool)) {
      logger.warn(
        `upstream ${server}: tool ${quoted} (${name}) holds escape sequences or hidden characters; they are removed or shown escaped`,
      )
    }
  }
  return names
}

/** A name an upstream chose, JSON-quoted with every hidden character escaped, for a log line. */
function quote(name: string): string {
  return escapeHiddenCharacters(JSON.stringify(name))
}
