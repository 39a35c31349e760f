// One upstream connected with the official SDK client, which is loaded only when a gateway starts.
import type { Readable } from 'node:stream'
import type { Tool } from '@modelcontextprotocol/server'
import type { UpstreamServer } from './config.js'
import { HOST_REQUEST_METHODS, type HostRouter } from './host.js'
import { relayUpstreamStderr } from './stderr.js'
import type { UpstreamCaller } from './upstream-tool.js'

/** An upstream once connected: its tools, a caller for them, and its end. */
export interface UpstreamConnection extends UpstreamCaller {
  tools: Tool[]
  /** The protocol revision the handshake settled on: 2026-07-28 with a modern HTTP server, a 2025 one otherwise. */
  protocolVersion: string | undefined
  /** Called each time the upstream says its tools changed: with its whole list read again, or why that read failed. */
  onToolsChanged(listener: (change: ToolsChange) => void): void
  /** Called once when the connection ends by itself (the process exited, the transport failed). */
  onClosed(listener: () => void): void
  /** Whether the upstream still answers: a ping within `timeoutMs`. */
  ping(timeoutMs: number): Promise<boolean>
  /** Ends the connection; a stdio upstream's process is ended with it (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>
}

/** An upstream's list read again after it said its tools changed, or the error that read ended in. */
export type ToolsChange = { ok: true; tools: Tool[] } | { ok: false; error: Error }

/** What connecting needs besides the server. */
export interface ConnectOptions {
  /** How the gateway introduces itself to the upstream. */
  clientInfo: { name: string; version: string }
  /** How long the handshake and the tool listing may take, in ms. */
  timeoutMs: number
  /** Aborted when the gateway closes while this server is still connecting. */
  signal: AbortSignal
  /** Where the upstream's sampling, elicitation and roots requests go, and the calls that route them. */
  hosts: HostRouter
  /** Where a stdio upstream's stderr goes, a prefixed line at a time. */
  stderr: (text: string) => void
}

/**
 * The capabilities the gateway declares to every upstream: whatever a host may offer, since hosts
 * connect after the upstreams and each may offer different ones. A request a host cannot answer is
 * refused then, saying so (HostRouter).
 */
export const UPSTREAM_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
} as const

/**
 * Starts or reaches the upstream, initializes, and lists its tools. A stdio upstream is a child of this
 * process; its stderr is relayed line by line under its name. Rejects when the program cannot start,
 * the handshake fails or times out, or `signal` aborts; nothing is left running then.
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
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(server.url, { requestInit: { headers: server.headers } })
  if ('stderr' in transport) relayUpstreamStderr(transport.stderr as Readable, server.name, options.stderr)
  const changeListeners: ((change: ToolsChange) => void)[] = []
  const client = new Client(options.clientInfo, {
    capabilities: UPSTREAM_CLIENT_CAPABILITIES,
    // Over HTTP the probe for 2026-07-28 rides the connection, and a modern server's tool changes come on
    // the subscription listChanged opens. Over stdio the SDK would probe in a second process, doubling
    // every start, so a stdio upstream is spoken to in the 2025 revision every server still answers.
    ...(server.transport === 'http' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    // A list read again after a change (list_changed, or the 2026-07-28 subscription's event): the
    // listeners re-register it, or keep the old list when the read failed. With autoRefresh (the
    // default) the SDK hands over the list whenever it hands over no error.
    listChanged: {
      tools: {
        debounceMs: 0,
        onChanged: (error, tools) => {
          const change: ToolsChange = error === null ? { ok: true, tools: tools! } : { ok: false, error }
          for (const listener of changeListeners) listener(change)
        },
      },
    },
  })
  for (const method of HOST_REQUEST_METHODS) {
    client.setRequestHandler(method, (request, ctx) => options.hosts.forward(method, request.params, ctx.mcpReq.signal) as never)
  }
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
      protocolVersion: client.getNegotiatedProtocolVersion(),
      callTool: (params, { host, ...callOptions }) =>
        options.hosts.during(host, () =>
          client.callTool(params, {
            ...callOptions,
            ...(host?.progress === undefined ? {} : { onprogress: host.progress, resetTimeoutOnProgress: true }),
          }),
        ),
      isProtocolError: (error): error is InstanceType<typeof ProtocolError> => error instanceof ProtocolError,
      onToolsChanged: (listener) => void changeListeners.push(listener),
      onClosed: (listener) => void closedListeners.push(listener),
      ping: (timeoutMs) =>
        client.ping({ timeout: timeoutMs }).then(
          () => true,
          () => false,
        ),
      close,
    }
  } catch (error) {
    await close()
    throw error
  } finally {
    options.signal.removeEventListener('abort', abort)
  }
}
