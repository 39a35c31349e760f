// serveMcpHttp: the server on Streamable HTTP, each client session its own MCP server, behind a bearer token.
import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { escapeHiddenCharacters } from '@dsh/core'
import { isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { MCP_TRANSPORT_DEFAULTS, type McpTransportSettings } from '../plugin.js'
import { addOnClose, buildDshMcpServer, type DshMcpOptions } from '../server.js'
import { bearerTokenCheck } from './bearer-token.js'
import { endpointUrl, MCP_PATH, type ListenAddress } from './listen-address.js'
import { jsonRpcErrorResponse, readBody, toWebRequest, writeWebResponse } from './node-bridge.js'
import { ModernEndpoint } from './modern.js'
import { requestGuard } from './request-guard.js'
import { HttpSessions, type HttpSession } from './sessions.js'

/** What `serveMcpHttp` takes: the server's options, where to listen, the token, and a stop signal. */
export interface ServeMcpHttpOptions extends DshMcpOptions {
  /** Where to listen (`parseListenAddress`). */
  address: ListenAddress
  /** The bearer token every request must carry; only a loopback address may go without one. */
  token: string | undefined
  /** Aborting it ends the server (SIGTERM, SIGINT). */
  signal: AbortSignal
  /** Called once the server listens, with the endpoint's URL (the port chosen when it was 0). */
  onListening: (url: string) => void
}

/** The JSON-RPC code the SDK's transport gives an HTTP-level refusal (implementation-defined server error). */
const HTTP_REFUSED = -32000
/** The code the SDK's transport gives an unknown session, so its client knows to initialize again. */
const SESSION_NOT_FOUND = -32001

/**
 * Serves on Streamable HTTP until `signal` aborts. Each client that initializes gets a session of its
 * own: its own MCP server, spill owner (`session` plus a random suffix) and loaded tools, bounded in
 * number and ended when idle (the mcp plugin's `http*` settings). Every request must pass the Host
 * and Origin checks and carry the token; a body is at most `messageMaxBytes`. Stopping ends every
 * session (aborting its calls, whose process groups are signalled at once) and resolves once the
 * calls have returned and every connection is closed (docs/design.md#streamable-http).
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<void> {
  const { address, token, signal, onListening, ...serverOptions } = options
  if (!address.loopback && token === undefined) {
    throw new Error(`serving MCP on ${address.host}, which other machines can reach, needs a bearer token`)
  }
  if (signal.aborted) return
  const settings: McpTransportSettings = options.harness.get('mcpTransport') ?? MCP_TRANSPORT_DEFAULTS
  const sessions = new HttpSessions({ maxSessions: settings.httpMaxSessions, idleMs: settings.httpSessionIdleMs })
  const endpoint: Endpoint = {
    serverOptions,
    settings,
    sessions,
    guard: requestGuard(address),
    checkToken: token === undefined ? undefined : bearerTokenCheck(token),
    modern: new ModernEndpoint(serverOptions, settings),
  }
  const requestTimeout = settings.httpRequestTimeoutMs
  const http = createServer(
    // Node checks the deadlines every connectionsCheckingInterval (30 s by default): often enough to keep them.
    { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(requestTimeout / 4, 30_000) },
    (req, res) =>
      void answer(endpoint, req, res).catch((error: Error) => {
        // A client gone mid-body, or a failure not foreseen: a response may be half written, so the
        // connection is dropped rather than answered.
        // The URL is the client's: escaped, it cannot forge a log line.
        serverOptions.logger.warn(`mcp: ${req.method} ${escapeHiddenCharacters(req.url!)}: ${error.message}`)
        res.destroy()
      }),
  )
  await listen(http, address)
  // Stopped while the port was being bound: its abort has fired already, and nothing was served to prepare for.
  if (signal.aborted) return void (await new Promise((resolve) => http.close(resolve)))
  endpoint.modern.prepareAhead()
  // 2025-era sessions each hear of upstream changes through their own server; 2026-07-28 listeners through the handler.
  const unsubscribe = serverOptions.toolChanges?.onToolsChanged(() => endpoint.modern.toolsChanged())
  onListening(endpointUrl(address.host, (http.address() as AddressInfo).port))
  const sweeper = setInterval(
    () => {
      void sessions.sweep()
      endpoint.modern.sweep()
    },
    Math.min(settings.httpSessionIdleMs / 4, 60_000),
  )
  await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
  clearInterval(sweeper)
  // No connection is left to bring a request in: each response in progress is cut, as a client
  // whose server stops expects, and no session opens behind endAll's back.
  const closed = new Promise((resolve) => http.close(resolve))
  http.closeAllConnections()
  unsubscribe?.()
  await Promise.all([sessions.endAll(), endpoint.modern.close()])
  await closed
}

/** What answering a request needs. */
interface Endpoint {
  serverOptions: DshMcpOptions
  settings: McpTransportSettings
  sessions: HttpSessions
  guard: ReturnType<typeof requestGuard>
  checkToken: ReturnType<typeof bearerTokenCheck> | undefined
  modern: ModernEndpoint
}

async function answer(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refusal = refuse(endpoint, req)
  if (refusal !== undefined) return writeWebResponse(res, refusal)
  let body: unknown
  if (req.method === 'POST') {
    const read = await readBody(req, endpoint.settings.messageMaxBytes)
    if (!read.ok) {
      const limit = endpoint.settings.messageMaxBytes
      return writeWebResponse(
        res,
        jsonRpcErrorResponse(413, HTTP_REFUSED, `a request body is at most ${limit} bytes`, { Connection: 'close' }),
      )
    }
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes))
    } catch {
      return writeWebResponse(res, jsonRpcErrorResponse(400, -32700, 'Parse error: the body is not JSON in UTF-8'))
    }
  }
  const sessionId = req.headers['mcp-session-id']
  if (typeof sessionId === 'string') {
    const session = endpoint.sessions.get(sessionId)
    if (session === undefined) {
      const message = 'Session not found: it ended (idle too long, or the server restarted); initialize again'
      return writeWebResponse(res, jsonRpcErrorResponse(404, SESSION_NOT_FOUND, message))
    }
    return exchange(endpoint, session, req, res, body)
  }
  if (req.method === 'POST' && isInitializeRequest(body)) return openSession(endpoint, req, res, body)
  // A 2026-07-28 request carries its protocol version in `_meta` and needs no session: the SDK's
  // classification (the same the per-request handler runs) tells it from a 2025 one.
  if (req.method === 'POST') {
    const request = toWebRequest(req)
    if (!(await isLegacyRequest(request, body))) return writeWebResponse(res, await endpoint.modern.fetch(request, body))
  }
  return writeWebResponse(res, jsonRpcErrorResponse(400, HTTP_REFUSED, 'Bad Request: Mcp-Session-Id header is required; initialize first'))
}

/** Why a request is refused before its body is read, as the response, or undefined. */
function refuse(endpoint: Endpoint, req: IncomingMessage): Response | undefined {
  const forged = endpoint.guard(req.headers.host, req.headers.origin)
  if (forged !== undefined) return jsonRpcErrorResponse(403, HTTP_REFUSED, `Forbidden: ${forged}`)
  if (endpoint.checkToken !== undefined) {
    const verdict = endpoint.checkToken(req.headers.authorization)
    if (verdict !== 'valid') {
      // RFC 6750 §3: a request without credentials gets the bare challenge, a wrong token `invalid_token`.
      const challenge = verdict === 'missing' ? 'Bearer realm="dsh"' : 'Bearer realm="dsh", error="invalid_token"'
      const message = verdict === 'missing' ? 'Unauthorized: send Authorization: Bearer TOKEN' : 'Unauthorized: the bearer token is wrong'
      return jsonRpcErrorResponse(401, HTTP_REFUSED, message, { 'WWW-Authenticate': challenge })
    }
  }
  if (new URL(req.url!, 'http://mcp.invalid').pathname !== MCP_PATH) {
    return jsonRpcErrorResponse(404, HTTP_REFUSED, `Not Found: the MCP endpoint is ${MCP_PATH}`)
  }
  if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
    return jsonRpcErrorResponse(405, HTTP_REFUSED, 'Method not allowed.', { Allow: 'GET, POST, DELETE' })
  }
  return undefined
}

/** One exchange of an open session, counted as activity for as long as its response lasts. */
async function exchange(endpoint: Endpoint, session: HttpSession, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  res.once('close', endpoint.sessions.busy(session))
  const response = await session.transport.handleRequest(toWebRequest(req), body === undefined ? undefined : { parsedBody: body })
  await writeWebResponse(res, response)
}

/** An initialize without a session: a new session, when there is room for one. */
async function openSession(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const { sessions, serverOptions } = endpoint
  if (sessions.refusal() !== undefined) await sessions.sweep()
  // The owner names the session's spilled results, and the URIs that link them: random, and not the
  // session id, which works as a credential for the session.
  const owner = `${serverOptions.session}-${randomBytes(6).toString('hex')}`
  const parts = buildDshMcpServer({ ...serverOptions, session: owner })
  let session: HttpSession | undefined
  const ended = new Promise<void>((resolve) => {
    addOnClose(parts.server, () => {
      if (session !== undefined) sessions.forget(session.id)
      void parts.callsSettled().then(() => {
        parts.release()
        resolve()
      })
    })
  })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => {
      session = { id, owner, transport, parts, open: 0, lastActive: Date.now(), ended }
      sessions.add(session)
      res.once('close', sessions.busy(session))
    },
  })
  await parts.server.connect(transport)
  // Checked here, after the last wait: the transport adds the session before it first waits, so two
  // initializes arriving together cannot both take the last place.
  const full = sessions.refusal()
  if (full !== undefined) {
    await parts.server.close()
    return writeWebResponse(res, jsonRpcErrorResponse(503, HTTP_REFUSED, `Service Unavailable: ${full}`, { 'Retry-After': '60' }))
  }
  const response = await transport.handleRequest(toWebRequest(req), { parsedBody: body })
  // An initialize the transport refused (a batch holding one) opened no session to keep.
  if (session === undefined) await parts.server.close()
  await writeWebResponse(res, response)
}

function listen(http: NodeHttpServer, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject)
    http.listen(address.port, address.host, () => {
      http.off('error', reject)
      resolve()
    })
  })
}
