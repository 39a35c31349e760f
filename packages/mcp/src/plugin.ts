// The mcp plugin: the MCP server's own settings, read from the `mcp` key of a harness's config.
import { isAbsolute } from 'node:path'
import { z } from 'zod'
import type { PluginContext } from '@dsh/core'

const KiB = 1024
const MiB = 1024 * KiB

/**
 * The largest JSON-RPC message `dsh mcp` takes, in bytes, unless configured: far above any real request
 * (a tool call's arguments, a roots/list answer), and below the 10 MiB past which the SDK's own stdio
 * transport ended the session.
 */
export const MCP_MESSAGE_MAX_BYTES = 4 * MiB

/** Sessions one `dsh mcp --http` holds at once, unless configured: a team's agents, each with a few subagents. */
export const MCP_HTTP_MAX_SESSIONS = 64

/** How long an HTTP session may sit unused before it ends, unless configured: an agent waiting on a person. */
export const MCP_HTTP_SESSION_IDLE_MS = 30 * 60_000

/**
 * How long a client may take to send one HTTP request, headers and body, unless configured: a 4 MiB
 * body crosses loopback in milliseconds, so only a stalled or trickling client takes longer.
 */
export const MCP_HTTP_REQUEST_TIMEOUT_MS = 30_000

/** What the mcp plugin provides as the `mcpTransport` service, and what `serveMcpStdio` and `serveMcpHttp` read from it. */
export interface McpTransportSettings {
  /** Bytes one message may hold (one stdin line, its newline excluded; one HTTP request body). */
  messageMaxBytes: number
  /** HTTP sessions open at once; an initialize past it is refused with 503. */
  httpMaxSessions: number
  /** Milliseconds an HTTP session with nothing in progress lives on after its last exchange. */
  httpSessionIdleMs: number
  /** Milliseconds a client has to send one HTTP request (headers and body); a slower one gets 408. */
  httpRequestTimeoutMs: number
  /**
   * The directory calls run in when `--cwd` is not given and the client names none (no roots, no
   * `_meta["dsh/cwd"]`); an absolute path, or undefined.
   */
  workspace?: string | undefined
}

/** The settings a harness without the mcp plugin is served with: each one's default. */
export const MCP_TRANSPORT_DEFAULTS: McpTransportSettings = {
  messageMaxBytes: MCP_MESSAGE_MAX_BYTES,
  httpMaxSessions: MCP_HTTP_MAX_SESSIONS,
  httpSessionIdleMs: MCP_HTTP_SESSION_IDLE_MS,
  httpRequestTimeoutMs: MCP_HTTP_REQUEST_TIMEOUT_MS,
}

/** What the mcp plugin provides as the `mcpGateway` service, and what `dsh mcp --upstream` reads from it. */
export interface McpGatewaySettings {
  /** Whether the gateway lists call_tool, for hosts that keep the first tool list they fetched. */
  callTool: boolean
}

declare module '@dsh/core' {
  interface Services {
    /** The MCP server's transport settings, which the mcp plugin provides from its config. */
    mcpTransport: McpTransportSettings
    /** The upstream gateway's settings, which the mcp plugin provides from its config. */
    mcpGateway: McpGatewaySettings
  }
}

/** The plugin's name: its config key. */
export const name = 'mcp'

/** The plugin needs no service: it only provides its settings. */
export const inject = [] as const

/** The MCP server's settings. */
export const Config = z.strictObject({
  messageMaxBytes: z
    .number()
    .int()
    // An initialize, or a tool call with a long pattern, must always fit.
    .min(64 * KiB)
    // V8 cannot build a string past ~512 Mi UTF-16 units, and a message is decoded whole; half that leaves room.
    .max(256 * MiB)
    .default(MCP_MESSAGE_MAX_BYTES)
    .describe(
      'Bytes one JSON-RPC message from the MCP client may hold (one line of `dsh mcp` stdin, its newline excluded; one HTTP request body under `dsh mcp --http`). A longer line is answered with an Invalid Request error (-32600), a longer body with 413, and its bytes are dropped as they arrive, so the session goes on and memory stays bounded; 4 MiB is far above any real request. @default 4194304',
    ),
  httpMaxSessions: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(MCP_HTTP_MAX_SESSIONS)
    .describe(
      "Sessions `dsh mcp --http` holds at once, each with its own spilled results and loaded tools. Idle sessions are ended first; an initialize that still finds no room is refused with 503, so one client cannot end another's session. @default 64",
    ),
  httpSessionIdleMs: z
    .number()
    .int()
    .min(1_000)
    .default(MCP_HTTP_SESSION_IDLE_MS)
    .describe(
      'Milliseconds an HTTP session lives on with no request in progress and no stream open, after which it ends (its calls done, its loaded tools forgotten) and its id is answered 404, on which a client initializes again. @default 1800000',
    ),
  httpRequestTimeoutMs: z
    .number()
    .int()
    .min(100)
    .default(MCP_HTTP_REQUEST_TIMEOUT_MS)
    .describe(
      'Milliseconds a client has to send one HTTP request to `dsh mcp --http`, headers and body; a client that stalls or trickles past it is answered 408 and disconnected. Responses (a long search, a standing event stream) are not limited by it: each tool call has its own timeout. @default 30000',
    ),
  gatewayCallTool: z
    .boolean()
    .default(true)
    .describe(
      "Whether `dsh mcp --upstream` lists call_tool(name, arguments), which calls any deferred tool tool_search loaded: a host that keeps the first tool list it fetched (LangChain's MultiServerMCPClient) reaches loaded tools through it. Turn it off for hosts that fetch the list again on notifications/tools/list_changed, to keep one tool out of every listing. @default true",
    ),
  workspace: z
    .string()
    .refine(isAbsolute, 'must be an absolute path')
    .optional()
    .describe(
      'The directory `dsh mcp` searches when `--cwd` is not given and the client names none: a 2025 client that sends no roots, a 2026-07-28 request without `_meta["dsh/cwd"]`. An absolute path. Without it such a call fails with Invalid params saying how to name one, over stdio and HTTP alike; it never runs in the directory `dsh mcp` happened to start in. @default (unset)',
    ),
})

/** Provides the settings as the `mcpTransport` and `mcpGateway` services. */
export function apply(ctx: PluginContext, config: z.output<typeof Config>): void {
  const { gatewayCallTool, ...transport } = config
  ctx.provide('mcpTransport', transport)
  ctx.provide('mcpGateway', { callTool: gatewayCallTool })
}
