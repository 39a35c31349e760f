// The mcp plugin: the MCP server's own settings, read from the `mcp` key of a harness's config.
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

/** What the mcp plugin provides as the `mcpTransport` service, and what `serveMcpStdio` reads from it. */
export interface McpTransportSettings {
  /** Bytes one message may hold (one stdin line, its newline excluded). */
  messageMaxBytes: number
}

declare module '@dsh/core' {
  interface Services {
    /** The MCP server's transport settings, which the mcp plugin provides from its config. */
    mcpTransport: McpTransportSettings
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
      'Bytes one JSON-RPC message from the MCP client may hold (one line of `dsh mcp` stdin, its newline excluded). A longer one is answered with an Invalid Request error (-32600) and its bytes are dropped as they arrive, so the session goes on and memory stays bounded; 4 MiB is far above any real request. @default 4194304',
    ),
})

/** Provides the settings as the `mcpTransport` service. */
export function apply(ctx: PluginContext, config: z.output<typeof Config>): void {
  ctx.provide('mcpTransport', { messageMaxBytes: config.messageMaxBytes })
}
