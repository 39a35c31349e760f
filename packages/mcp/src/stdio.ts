// serveMcpStdio: the server on a process's stdin and stdout until stdin closes or the host stops it.
import type { Readable, Writable } from 'node:stream'
import { serveStdio } from '@modelcontextprotocol/server/stdio'
import { MCP_MESSAGE_MAX_BYTES } from './plugin.js'
import { buildDshMcpServer, type DshMcpOptions, type DshMcpServerParts } from './server.js'
import { StdioJsonRpcTransport } from './stdio-transport.js'

/** What `serveMcpStdio` takes: the server's options, the streams (default the process's) and a stop signal. */
export interface ServeMcpStdioOptions extends DshMcpOptions {
  /** @default process.stdin */
  stdin?: Readable
  /** Nothing but JSON-RPC is written here. @default process.stdout */
  stdout?: Writable
  /** Aborting it closes the server (SIGTERM, SIGINT). */
  signal?: AbortSignal | undefined
}

/**
 * Serves over stdio and resolves once stdin closes or `signal` aborts. The SDK's `serveStdio` reads the
 * opening message: an `initialize` pins a 2025-era server (roots, `list_changed`), a 2026-07-28
 * request (`server/discover`, the `_meta` envelope) a modern one, whose `subscriptions/listen` the SDK
 * serves (docs/design.md#both-revisions-over-stdio). Closing aborts every call still running (a
 * search's process group is signalled at once), and this resolves only after those calls have
 * returned, so a host that exits next leaves no search behind. The session ends with it: the registry
 * forgets the tools it loaded. A message is at most the `mcp` plugin's `messageMaxBytes`, when the
 * harness loaded it, else MCP_MESSAGE_MAX_BYTES; bad input is answered and the session goes on.
 */
export async function serveMcpStdio(options: ServeMcpStdioOptions): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, signal, ...serverOptions } = options
  if (signal?.aborted === true) return
  const messageMaxBytes = options.harness.get('mcpTransport')?.messageMaxBytes ?? MCP_MESSAGE_MAX_BYTES
  const transport = new StdioJsonRpcTransport(stdin, stdout, { messageMaxBytes })
  // Usually one server; a server/discover followed by an initialize builds a probe the SDK discards.
  const built: DshMcpServerParts[] = []
  // The SDK reports a transport's error to the entry and then to the pinned server: logged once.
  const reported = new WeakSet<Error>()
  const report = (error: Error): void => {
    if (reported.has(error)) return
    reported.add(error)
    serverOptions.logger.warn(`mcp: ${error.message}`)
  }
  const connection = serveStdio(
    ({ era }) => {
      const parts = buildDshMcpServer({ ...serverOptions, era })
      parts.server.onerror = report
      built.push(parts)
      return parts.server
    },
    { transport, onerror: report },
  )
  const stop = (): void => void connection.close()
  signal?.addEventListener('abort', stop, { once: true })
  try {
    await transport.closed
  } finally {
    signal?.removeEventListener('abort', stop)
    // The SDK closes the pinned server when the transport closes, which aborts its calls.
    await Promise.all(built.map(async (parts) => parts.server.close()))
    await Promise.all(built.map((parts) => parts.callsSettled()))
    for (const parts of built) parts.release()
  }
}
