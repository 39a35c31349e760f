// 2026-07-28 requests: no handshake and no session header; each request carries its own `_meta`, and a server of its own.
import { createHash, randomBytes } from 'node:crypto'
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server'
import type { McpTransportSettings } from '../plugin.js'
import { addOnClose, buildDshMcpServer, prepareWorkspace, workspaceAhead, type DshMcpOptions, type DshMcpServerParts } from '../server.js'
import { SpillLinks } from '../spill-links.js'

/**
 * The `_meta` key a 2026-07-28 request names its session under (a string of at most 128 characters):
 * requests that name the same session share a spill owner, the results `resources/read` can serve,
 * and the deferred tools tool_search loaded. A request that names none is a session of its own.
 */
export const SESSION_META = 'dsh/session'

/** A session that 2026-07-28 requests named: what outlives each request's server. */
interface StatedSession {
  owner: string
  links: SpillLinks
  lastActive: number
}

/** What a request's server is built with, found again by the factory from the request. */
interface RequestPlan {
  owner: string
  links: SpillLinks
}

/**
 * Serves 2026-07-28 requests through the SDK's per-request handler (`server/discover`, the `_meta`
 * envelope, `subscriptions/listen`), one dsh server per request. The SDK answers the protocol; this
 * keeps what a session needs between requests, bounded by `httpMaxSessions` and forgotten after
 * `httpSessionIdleMs` without a request.
 */
export class ModernEndpoint {
  readonly #serverOptions: DshMcpOptions
  readonly #settings: McpTransportSettings
  readonly #handler: McpHttpHandler
  readonly #stated = new Map<string, StatedSession>()
  readonly #plans = new WeakMap<Request, RequestPlan>()
  readonly #live = new Set<DshMcpServerParts>()
  readonly #preparing = new AbortController()

  constructor(serverOptions: DshMcpOptions, settings: McpTransportSettings) {
    this.#serverOptions = serverOptions
    this.#settings = settings
    // 'reject': 2025-era traffic never reaches this handler; the sessionful transport serves it.
    this.#handler = createMcpHandler((ctx) => this.#build(ctx.requestInfo!), {
      legacy: 'reject',
      maxRequestBodySize: settings.messageMaxBytes,
      onerror: (error) => serverOptions.logger.info(`mcp: ${error.message}`),
    })
  }

  /**
   * Prepares the workspace calls that name none of their own run in: once for the process, not per
   * request, and once the endpoint listens (a server that never listened prepares nothing).
   */
  prepareAhead(): void {
    const ahead = workspaceAhead(this.#serverOptions)
    if (ahead !== undefined) prepareWorkspace(this.#serverOptions, ahead, this.#preparing.signal)
  }

  /** Answers one request whose body was read and parsed; a session past the bound is refused in JSON-RPC. */
  async fetch(request: Request, body: unknown): Promise<Response> {
    const meta = requestMeta(body)
    const named = meta[SESSION_META]
    let plan: RequestPlan
    if (named !== undefined && (typeof named !== 'string' || named.length === 0 || named.length > 128)) {
      return refusal(body, -32602, `Invalid params: _meta["${SESSION_META}"] must be a string of 1 to 128 characters`)
    }
    if (named !== undefined) {
      const session = this.#session(named)
      if (session === undefined) {
        return refusal(body, -32603, `Service Unavailable: ${this.#stated.size} sessions are named, the most this server holds`)
      }
      plan = { owner: session.owner, links: session.links }
    } else {
      const owner = `${this.#serverOptions.session}-${randomBytes(6).toString('hex')}`
      plan = { owner, links: new SpillLinks(owner) }
    }
    this.#plans.set(request, plan)
    const before = this.#listing(plan.owner)
    try {
      return await this.#handler.fetch(request, { parsedBody: body })
    } finally {
      const session = this.#stated.get(plan.owner)
      if (session === undefined) this.#serverOptions.harness.registry.forgetSession(plan.owner)
      else session.lastActive = Date.now()
      // A call that loaded deferred tools changed the session's listing: tell the listening streams.
      if (this.#listing(plan.owner) !== before) this.#handler.notify.toolsChanged()
    }
  }

  /** Tells every `subscriptions/listen` stream that asked for tool changes that the tools changed. */
  toolsChanged(): void {
    this.#handler.notify.toolsChanged()
  }

  /** Forgets the named sessions that made no request for `httpSessionIdleMs`. */
  sweep(now = Date.now()): void {
    for (const [owner, session] of this.#stated) {
      if (now - session.lastActive < this.#settings.httpSessionIdleMs) continue
      this.#stated.delete(owner)
      this.#serverOptions.harness.registry.forgetSession(owner)
    }
  }

  /** Aborts the requests in progress and resolves once their calls have settled. */
  async close(): Promise<void> {
    this.#preparing.abort()
    await this.#handler.close()
    await Promise.all([...this.#live].map((parts) => parts.callsSettled()))
    for (const owner of this.#stated.keys()) this.#serverOptions.harness.registry.forgetSession(owner)
    this.#stated.clear()
  }

  #session(named: string): StatedSession | undefined {
    // Hashed: the owner names a directory and a URI, and a client's string must be neither.
    const owner = `${this.#serverOptions.session}-${createHash('sha256').update(named).digest('hex').slice(0, 12)}`
    const known = this.#stated.get(owner)
    if (known !== undefined) return known
    if (this.#stated.size >= this.#settings.httpMaxSessions) this.sweep()
    if (this.#stated.size >= this.#settings.httpMaxSessions) return undefined
    const session = { owner, links: new SpillLinks(owner), lastActive: Date.now() }
    this.#stated.set(owner, session)
    return session
  }

  #build(request: Request): DshMcpServerParts['server'] {
    const plan = this.#plans.get(request)!
    const { toolChanges: _, ...options } = this.#serverOptions
    const parts = buildDshMcpServer({ ...options, session: plan.owner, links: plan.links, era: 'modern', preparesAhead: false })
    this.#live.add(parts)
    addOnClose(parts.server, () => void parts.callsSettled().then(() => this.#live.delete(parts)))
    return parts.server
  }

  #listing(owner: string): string {
    return this.#serverOptions.harness.registry
      .listFor(owner)
      .map((tool) => tool.name)
      .join('\n')
  }
}

/** The request's `params._meta`, or an empty one. */
function requestMeta(body: unknown): Record<string, unknown> {
  const meta = (body as { params?: { _meta?: unknown } } | null)?.params?._meta
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {}
}

/** A JSON-RPC error answering the message's id (null for a notification), in an HTTP 200, as the SDK answers in-band refusals. */
function refusal(body: unknown, code: number, message: string): Response {
  const id = (body as { id?: unknown }).id ?? null
  return Response.json({ jsonrpc: '2.0', id, error: { code, message } })
}
