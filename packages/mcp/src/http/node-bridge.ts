// node:http's request and response on one side, the SDK's web-standard Request and Response on the other.
import type { IncomingMessage, ServerResponse } from 'node:http'

/** A request body, or why it was not read whole. */
export type BodyRead = { ok: true; bytes: Buffer } | { ok: false; tooLarge: true }

/**
 * Reads a body of at most `maxBytes`. A declared Content-Length over the limit is refused before a
 * byte is read; otherwise the read stops at the first byte past it. A refused body's remaining bytes
 * are read and dropped (not kept), so the client, still sending, reads the refusal instead of a reset
 * connection; the server's request timeout bounds how long that lasts.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length'])
  if (declared > maxBytes) return drop(req)
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes > maxBytes) return drop(req)
    chunks.push(chunk)
  }
  return { ok: true, bytes: Buffer.concat(chunks, bytes) }
}

function drop(req: IncomingMessage): BodyRead {
  req.resume()
  return { ok: false, tooLarge: true }
}

/** The web-standard Request the SDK's transport reads: method, URL and headers; the body it is given parsed. */
export function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers()
  for (const [name, values] of Object.entries(req.headersDistinct)) for (const value of values!) headers.append(name, value)
  // The URL's origin is never used: only its path, and the session and version headers, route a request.
  return new Request(new URL(req.url!, 'http://mcp.invalid'), { method: req.method!, headers })
}

/**
 * Writes a web-standard Response: status and headers at once (an SSE stream's client is waiting for
 * them), then the body as it arrives. A client that goes away cancels the body, which tells the
 * SDK's transport that stream is gone.
 */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) {
    res.end()
    return
  }
  res.flushHeaders()
  const reader = response.body.getReader()
  // The SDK's transport closes its streams and never errors them, so cancelling one cannot fail; the
  // catch keeps a future SDK's failure from becoming an unhandled rejection that ends the process.
  /* v8 ignore next */
  const cancel = (): void => void reader.cancel().catch(() => undefined)
  res.once('close', cancel)
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value)
    res.end()
  } finally {
    res.off('close', cancel)
  }
}

/** A JSON-RPC error answer with no id, as the SDK's transport words its own: what HTTP refusals carry. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers })
}
