// The upstream servers a gateway fronts, read from the `mcpServers` file Claude Desktop and Cursor users already write.
import { z } from 'zod'
import { describeIssues, errorMessage } from '@dsh/core'
import { UpstreamError } from './errors.js'

/** One upstream: a program spoken to over its stdio, or a Streamable HTTP endpoint. */
export type UpstreamServer =
  | { name: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { name: string; transport: 'http'; url: URL; headers: Record<string, string> }

/** The largest file read, in bytes: a real one is a few kilobytes, and a mistaken path must not be read whole. */
export const UPSTREAM_CONFIG_MAX_BYTES = 1024 * 1024

// No NUL: a spawned program's arguments and environment cannot carry one.
const text = z.string().refine((value) => !value.includes('\0'), 'must not contain NUL')
const stdioEntry = z.object({
  type: z.literal('stdio').optional(),
  command: text.min(1, 'must name the program to run'),
  args: z.array(text).default([]),
  env: z.record(text, text).default({}),
  cwd: text.min(1).optional(),
})
const httpEntry = z.object({
  type: z.enum(['http', 'streamable-http']).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  headers: z.record(text, text).default({}),
})
const entry = z.union([stdioEntry, httpEntry], { error: 'needs a "command" (a stdio server) or a "url" (a Streamable HTTP server)' })
const file = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) })

/**
 * Reads an `mcpServers` file's text: `{"mcpServers": {"github": {"command": …, "args": […], "env": {…}}, "docs": {"url": …}}}`.
 * Keys this gateway does not use are ignored, as other hosts ignore them. An SSE server (`"type": "sse"`)
 * is refused: the SDK's Streamable HTTP client is what the gateway speaks.
 */
export function parseUpstreamConfig(source: string, label: string): UpstreamServer[] {
  if (Buffer.byteLength(source) > UPSTREAM_CONFIG_MAX_BYTES) {
    throw invalid(label, `is larger than ${UPSTREAM_CONFIG_MAX_BYTES} bytes; an mcpServers file is a few kilobytes`)
  }
  let json: unknown
  try {
    json = JSON.parse(source)
  } catch (error) {
    throw invalid(label, `is not JSON (${errorMessage(error)})`)
  }
  const parsed = file.safeParse(json)
  if (!parsed.success) throw invalid(label, `must be {"mcpServers": {NAME: {...}}}: ${describeIssues(parsed.error)}`)
  return Object.entries(parsed.data.mcpServers).map(([name, raw]) => readEntry(label, name, raw))
}

function readEntry(label: string, name: string, raw: unknown): UpstreamServer {
  if (name === '') throw invalid(label, 'names a server "": each server needs a name, the middle word of its tools\' names')
  if (typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'sse') {
    throw invalid(label, `server ${JSON.stringify(name)} uses SSE, which the gateway does not speak; give its Streamable HTTP url`)
  }
  const parsed = entry.safeParse(raw)
  if (!parsed.success) throw invalid(label, `server ${JSON.stringify(name)}: ${describeIssues(parsed.error)}`)
  const server = parsed.data
  if ('command' in server) {
    return {
      name,
      transport: 'stdio',
      command: server.command,
      args: server.args,
      env: server.env,
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    }
  }
  return { name, transport: 'http', url: new URL(server.url), headers: server.headers }
}

function invalid(label: string, problem: string): UpstreamError {
  return new UpstreamError('UPSTREAM_CONFIG_INVALID', `upstream file ${label} ${problem}`)
}
