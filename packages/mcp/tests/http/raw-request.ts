// Raw HTTP requests over loopback: what a broken or hostile client sends, which the SDK's client never would.
import { request } from 'node:http'

/** What came back. */
export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** What to send: the Host header is the URL's unless given, and a body may arrive in pieces, or never. */
export interface RawRequest {
  method?: string
  headers?: Record<string, string>
  /** Written in order; `stall` leaves the request unfinished, as a client that hangs does. */
  body?: (string | Buffer)[]
  stall?: boolean
}

/** Sends one request on a fresh connection and resolves with the response, or rejects if the connection fails. */
export function rawRequest(url: string, options: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    for (const piece of options.body ?? []) req.write(piece)
    if (options.stall !== true) req.end()
    else req.flushHeaders()
  })
}

/** The headers the SDK's client sends with a POST, with the token. */
export function postHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${token}`,
    ...extra,
  }
}

/** An initialize request's body, as a 2025-06-18 client sends it. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

/** The JSON-RPC error a refusal's body carries. */
export function errorOf(response: RawResponse): { code: number; message: string } {
  return (JSON.parse(response.body) as { error: { code: number; message: string } }).error
}
