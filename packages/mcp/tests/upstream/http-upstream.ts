// A small Streamable HTTP MCP server on 127.0.0.1 (an ephemeral port), in the test's process so a test
// can see what it received: a docs service whose `wait` tool runs until it is cancelled, and whose
// handshake can be held back to play a server that is slow to start.
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'

/** The running server and what it saw. */
export interface HttpUpstream {
  url: string
  /** Lets the held handshake through. */
  release(): void
  /** The `wait` calls whose cancellation reached this server, by their `id` argument. */
  cancelled: string[]
  /** The `wait` calls running now, by their `id` argument. */
  waiting: Set<string>
  close(): Promise<void>
}

/** Starts the docs server, on `port` when given (a server coming back); with `hold`, its answer to `initialize` waits for `release()`. */
export async function startHttpUpstream(options: { hold?: boolean; port?: number } = {}): Promise<HttpUpstream> {
  let release!: () => void
  const released = options.hold === true ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()
  release ??= () => undefined
  const cancelled: string[] = []
  const waiting = new Set<string>()
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>()

  const newSession = async (): Promise<WebStandardStreamableHTTPServerTransport> => {
    const server = new Server({ name: 'docs', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler('tools/list', () => ({
      tools: [
        {
          name: 'docs.search',
          description: 'Search the product documentation.',
          inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          _meta: { 'anthropic/searchHint': 'manual handbook' },
        },
        {
          name: 'wait',
          description: 'Wait until cancelled.',
          inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
      ],
    }))
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const args = (request.params.arguments ?? {}) as { query?: string; id?: string }
      if (request.params.name === 'docs.search') return { content: [{ type: 'text', text: `docs about ${args.query}` }] }
      const id = String(args.id)
      waiting.add(id)
      await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }))
      waiting.delete(id)
      cancelled.push(id)
      return { content: [{ type: 'text', text: 'cancelled' }] }
    })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void transports.set(id, transport),
    })
    await server.connect(transport)
    return transport
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const id = req.headers['mcp-session-id']
    const existing = typeof id === 'string' ? transports.get(id) : undefined
    if (existing === undefined) await released
    const transport = existing ?? (await newSession())
    const headers = new Headers()
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value)
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method ?? 'GET', headers, ...(body === '' ? {} : { body }) })
    const response = await transport.handleRequest(request)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    if (response.body !== null) {
      const reader = response.body.getReader()
      res.on('close', () => void reader.cancel().catch(() => undefined))
      for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value)
    }
    res.end()
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(error.message)
    })
  })
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    release,
    cancelled,
    waiting,
    close: async () => {
      release()
      for (const transport of transports.values()) await transport.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
