// The gateway: upstream MCP servers' tools registered beside ours, deferred until tool_search loads them.
import type { Server, Tool } from '@modelcontextprotocol/server'
import { errorMessage, escapeHiddenCharacters, type Logger, type ToolRegistry } from '@dsh/core'
import { defineCallTool } from './call-tool.js'
import type { UpstreamServer } from './config.js'
import { connectUpstream, type UpstreamConnection } from './connect.js'
import { HostRouter, hostPeerOf, type HostPeer } from './host.js'
import { settleWithin } from '../session-cwd.js'
import { upstreamToolName } from './tool-names.js'
import { defineUpstreamTool, hidesText } from './upstream-tool.js'

/** How long an upstream may take to start, initialize and list its tools, in ms. */
export const UPSTREAM_CONNECT_TIMEOUT_MS = 30_000

/**
 * How often an HTTP upstream is pinged, in ms: a server that went away is noticed within this and the
 * ping's timeout, not only when a call fails. A stdio upstream's exit is noticed at once.
 */
export const UPSTREAM_HEALTH_INTERVAL_MS = 15_000

/** The first and the longest wait before connecting again to an HTTP upstream that went away, in ms; each wait doubles. */
export const UPSTREAM_RETRY_MIN_MS = 1_000
export const UPSTREAM_RETRY_MAX_MS = 60_000

/** What `startUpstreamGateway` takes. */
export interface UpstreamGatewayOptions {
  servers: readonly UpstreamServer[]
  /** The harness's registry: tool_search must be registered in it, or nothing would load the upstream tools. */
  registry: ToolRegistry
  /** Where an upstream that fails, exits or lists an unusable tool is reported (stderr, for `dsh mcp`). */
  logger: Logger
  /** How the gateway introduces itself to each upstream. */
  clientInfo: { name: string; version: string }
  /** Whether call_tool is registered, for hosts that keep the first tool list. @default true */
  callTool?: boolean
  /** Where stdio upstreams' stderr goes, a `[server] line` at a time. @default process.stderr */
  stderr?: (text: string) => void
  /** @default UPSTREAM_CONNECT_TIMEOUT_MS */
  connectTimeoutMs?: number
  /** @default UPSTREAM_HEALTH_INTERVAL_MS */
  healthIntervalMs?: number
  /** @default { minMs: UPSTREAM_RETRY_MIN_MS, maxMs: UPSTREAM_RETRY_MAX_MS } */
  retry?: { minMs: number; maxMs: number }
  /** Connects one upstream; the SDK client by default (a seam for tests of what the gateway does with a connection). */
  connect?: typeof connectUpstream
}

/** The running gateway. */
export interface UpstreamGateway {
  /** Calls `listener` whenever upstream tools were registered, changed or removed; returns the unsubscribe. */
  onToolsChanged(listener: () => void): () => void
  /** A host connected to a server of ours: upstream requests outside a call (roots/list) go to the latest; returns the detach. */
  attachHost(server: Server): () => void
  /** Resolves once every upstream has connected or failed the first time. */
  readonly settled: Promise<void>
  /** Ends every upstream (a stdio one's process with it), connected or still connecting, and resolves once they have ended. */
  close(): Promise<void>
}

/**
 * Connects to every upstream at once, without waiting: each counts as connecting for tool_search until
 * it is up; then its tools are registered as `mcp__<server>__<tool>`. One that fails to connect is
 * reported and left out; a stdio one that exits later is reported and its tools are removed; an HTTP
 * one that stops answering has its tools removed until a retry reaches it again. An upstream's own
 * `list_changed` re-reads its tools. Every change is announced once, so a server can tell its host.
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
  const hosts: HostPeer[] = []
  const retry = options.retry ?? { minMs: UPSTREAM_RETRY_MIN_MS, maxMs: UPSTREAM_RETRY_MAX_MS }
  const healthIntervalMs = options.healthIntervalMs ?? UPSTREAM_HEALTH_INTERVAL_MS
  if (options.callTool !== false) registry.register(defineCallTool(registry))

  /** The loads of an upstream's tools when it went away, by session, given back when it returns. */
  const lostLoads = new Map<string, Load[]>()

  /** One connection's life: its tools registered, followed as they change, and removed when it ends; resolves when it has ended. */
  const serve = (server: UpstreamServer, connection: UpstreamConnection): Promise<'ended' | 'stopped'> => {
    connections.add(connection)
    let names = replaceTools(server.name, [], connection.tools, connection, registry, logger)
    restoreLoads(registry, lostLoads.get(server.name) ?? [], names)
    lostLoads.delete(server.name)
    changed()
    connection.onToolsChanged((change) => {
      if (!change.ok) {
        logger.warn(
          `upstream ${server.name} said its tools changed, but listing them again failed: ${errorMessage(change.error)}; its ${names.length} tools stay as they were`,
        )
        return
      }
      names = replaceTools(server.name, names, change.tools, connection, registry, logger)
      changed()
    })
    return new Promise((resolve) => {
      let health: NodeJS.Timeout | undefined
      let pinging = false
      let ended = false
      const end = (why: string): void => {
        if (ended) return
        ended = true
        clearInterval(health)
        stop.signal.removeEventListener('abort', stopped)
        connections.delete(connection)
        if (stop.signal.aborted) return resolve('stopped')
        lostLoads.set(server.name, loadsOf(registry, names))
        for (const name of names) registry.unregister(name)
        logger.warn(`upstream ${server.name} ${why}; its ${names.length} tools are removed`)
        names = []
        changed()
        resolve('ended')
      }
      const stopped = (): void => end('stopped')
      stop.signal.addEventListener('abort', stopped, { once: true })
      connection.onClosed(() => end(server.transport === 'http' ? 'closed its connection' : 'exited'))
      if (server.transport === 'http') {
        health = setInterval(() => {
          // A ping may take as long as the interval: one at a time.
          if (pinging) return
          pinging = true
          void connection.ping(healthIntervalMs).then(async (answered) => {
            pinging = false
            if (answered || ended) return
            await connection.close()
            end(`stopped answering (no reply to a ping within ${healthIntervalMs} ms)`)
          })
        }, healthIntervalMs)
        health.unref()
      }
    })
  }

  const attempt = async (server: UpstreamServer, hostRouter: HostRouter): Promise<UpstreamConnection> => {
    const connection = await connect(server, {
      clientInfo: options.clientInfo,
      timeoutMs: options.connectTimeoutMs ?? UPSTREAM_CONNECT_TIMEOUT_MS,
      signal: stop.signal,
      hosts: hostRouter,
      stderr: options.stderr ?? ((text) => void process.stderr.write(text)),
    })
    // Closed while the handshake finished: end it here, since close() did not see it.
    if (stop.signal.aborted) {
      await connection.close()
      throw stop.signal.reason
    }
    return connection
  }

  /** An HTTP upstream that went away is connected again, waits doubling from retry.minMs to retry.maxMs, until the gateway closes. */
  const reconnect = async (server: UpstreamServer, hostRouter: HostRouter): Promise<void> => {
    for (let wait = retry.minMs; !stop.signal.aborted; wait = Math.min(wait * 2, retry.maxMs)) {
      await delay(wait, stop.signal)
      try {
        const connection = await attempt(server, hostRouter)
        logger.warn(`upstream ${server.name} is back; its ${connection.tools.length} tools are restored`)
        if ((await serve(server, connection)) === 'stopped') return
        wait = retry.minMs / 2
      } catch (error) {
        if (!stop.signal.aborted) logger.info(`upstream ${server.name} still unreachable: ${errorMessage(error)}; retrying`)
      }
    }
  }

  const settled = Promise.all(
    options.servers.map(async (server) => {
      const hostRouter = new HostRouter(server.name, () => hosts.at(-1))
      const started = attempt(server, hostRouter)
      registry.awaitServer(server.name, started)
      let connection: UpstreamConnection
      try {
        connection = await started
      } catch (error) {
        if (!stop.signal.aborted)
          logger.warn(`upstream ${server.name} failed to connect: ${errorMessage(error)}; its tools are not available`)
        return
      }
      void serve(server, connection).then((how) => {
        if (how === 'ended' && server.transport === 'http') return reconnect(server, hostRouter)
      })
    }),
  ).then(() => undefined)

  return {
    onToolsChanged(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    attachHost(server) {
      const peer = hostPeerOf(server)
      hosts.push(peer)
      return () => void hosts.splice(hosts.indexOf(peer), 1)
    },
    settled,
    async close() {
      // Taken first: each connection leaves the set as the abort ends its life.
      const open = [...connections]
      stop.abort()
      await Promise.all(open.map((connection) => connection.close()))
      await settled
    },
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return settleWithin(new Promise<void>(() => {}), ms, signal)
}

/** The deferred tools each session had loaded, of those named. */
interface Load {
  session: string
  names: string[]
}

function loadsOf(registry: ToolRegistry, names: readonly string[]): Load[] {
  const of = new Set(names)
  return registry
    .sessionsWithLoads()
    .map((session) => ({ session, names: registry.loadedDeferred(session).filter((name) => of.has(name)) }))
    .filter((load) => load.names.length > 0)
}

/** Loads again, in each session still open, the tools of `loads` that are registered again (`names`). */
function restoreLoads(registry: ToolRegistry, loads: readonly Load[], names: readonly string[]): void {
  const back = new Set(names)
  const open = new Set(registry.sessionsWithLoads())
  for (const { session, names: loaded } of loads) {
    const again = loaded.filter((name) => back.has(name))
    if (again.length > 0 && open.has(session)) registry.loadDeferred(session, again)
  }
}

/**
 * Replaces an upstream's registered tools (`registered`, their names) with `tools`, and returns the new
 * names. A session that had loaded a tool keeps it loaded when the tool is listed again under the same
 * name. A tool that cannot be registered is reported and skipped, and one whose text hid something is
 * reported too, since only a server up to no good (or badly broken) writes escape sequences or invisible
 * characters into a tool.
 */
function replaceTools(
  server: string,
  registered: readonly string[],
  tools: readonly Tool[],
  connection: UpstreamConnection,
  registry: ToolRegistry,
  logger: Logger,
): string[] {
  const loads = loadsOf(registry, registered)
  for (const name of registered) registry.unregister(name)
  const names: string[] = []
  const seen = new Set<string>()
  for (const tool of tools) {
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
  restoreLoads(registry, loads, names)
  return names
}

/** A name an upstream chose, JSON-quoted with every hidden character escaped, for a log line. */
function quote(name: string): string {
  return escapeHiddenCharacters(JSON.stringify(name))
}
