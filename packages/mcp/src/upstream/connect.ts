// One upstream connected with the official SDK client, which is loaded only when a gateway starts.
import type { Tool } from '@modelcontextprotocol/server'
import type { UpstreamServer } from './config.js'
import type { UpstreamCaller } from './upstream-tool.js'

/** An upstream once connected: its tools, a caller for them, and its end. */
export interface UpstreamConnection extends UpstreamCaller {
  tools: Tool[]
  /** Called once when the connection ends by itself (the process exited, the transport failed). */
  onClosed(listener: () => void): void
  /** Ends the connection; a stdio upstream's process is ended with it (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>
}

/** What connecting needs besides the server. */
export interface ConnectOptions {
  /** How the gateway introduces itself to the upstream. */
  clientInfo: { name: string; version: string }
  /** How long the handshake and the tool listing may take, in ms. */
  timeoutMs: number
  /** Aborted when the gateway closes while this server is still connecting. */
  signal: AbortSignal
}

/**
 * Starts or reaches the upstream, initializes, and lists its tools. A stdio upstream is a child of this
 * process; its stderr is this process's, so its own messages reach the host's log. Rejects when the
 * program cannot start, the handshake fails or times out, or `signal` aborts; nothing is left running then.
 */
export async function connectUpstream(server: UpstreamServer, options: ConnectOptions): Promise<UpstreamConnection> {
  // Loaded here, not at the top: `dsh mcp` without upstreams never pays for the client SDK.
  const { Client, ProtocolError, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client')
  const transport =
    server.transport === 'stdio'
      ? new (await import('@modelcontextprotocol/client/stdio')).StdioClientTransport({
          command: server.command,
          args: server.args,
          env: server.env,
          ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(server.url, { requestInit: { headers: server.headers } })
  const client = new Client(options.clientInfo)
  const closedListeners: (() => void)[] = []
  // One close however many ask (an abort, a failed handshake, the gateway): each waits for the process to end.
  let closed: Promise<void> | undefined
  client.onclose = () => {
    if (closed === undefined) for (const listener of closedListeners) listener()
  }
  const close = (): Promise<void> => (closed ??= client.close())
  const abort = (): void => void close()
  options.signal.addEventListener('abort', abort, { once: true })
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal })
    const { tools } = await client.listTools(undefined, { timeout: options.timeoutMs, signal: options.signal })
    return {
      tools,
      callTool: (params, callOptions) => client.callTool(params, callOptions),
      isProtocolError: (error): error is InstanceType<typeof ProtocolError> => error instanceof ProtocolError,
      onClosed: (listener) => void closedListeners.push(listener),
      close,
    }
  } catch (error) {
    await close()
    throw error
  } finally {
    options.signal.removeEventListener('abort', abort)
  }
}
