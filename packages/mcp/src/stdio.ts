// serveMcpStdio: the server on a process's stdin and stdout until stdin closes or the host stops it.
import type { Readable, Writable } from 'node:stream'
import { MCP_MESSAGE_MAX_BYTES } from './plugin.js'
import { buildDshMcpServer, type DshMcpOptions } from './server.js'
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
 * Serves over stdio and resolves once stdin closes or `signal` aborts. Closing aborts every call still
 * running (a search's process group is signalled at once), and this resolves only after those calls
 * have returned, so a host that exits next leaves no search behind. The session ends with it: the
 * registry forgets the tools it loaded. A message is at most the `mcp` plugin's `messageMaxBytes`, when
 * the harness loaded it, else MCP_MESSAGE_MAX_BYTES; bad input is answered and the session goes on.
 */
export async function serveMcpStdio(options: ServeMcpStdioOptions): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, signal, ...serverOptions } = options
  if (signal?.aborted === true) return
  const { server, callsSettled, release } = buildDshMcpServer(serverOptions)
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve
  })
  const stop = (): void => void server.close()
  signal?.addEventListener('abort', stop, { once: true })
  try {
    const messageMaxBytes = options.harness.get('mcpTransport')?.messageMaxBytes ?? MCP_MESSAGE_MAX_BYTES
    await server.connect(new StdioJsonRpcTransport(stdin, stdout, { messageMaxBytes }))
    await closed
  } finally {
    signal?.removeEventListener('abort', stop)
    await callsSettled()
    release()
  }
}
