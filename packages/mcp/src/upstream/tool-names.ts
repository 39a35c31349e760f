// The name an upstream tool is registered under: mcp__<server>__<tool>, as a model may call it.
import { createHash } from 'node:crypto'

/** The longest tool name: what the Anthropic API and OpenAI accept, and what `defineTool` allows. */
export const TOOL_NAME_MAX_CHARS = 64

/**
 * `mcp__<server>__<tool>` with every character a model's tool name may not hold (anything but ASCII
 * letters, digits, `_` and `-`; MCP itself also allows `.`) replaced by `_`, as Claude Code names MCP
 * tools. A name that would be too long, or that another tool already took (`a.b` and `a_b` become
 * alike), is cut and ends with a hash of the original server and tool names instead, so each upstream
 * tool keeps one stable name.
 */
export function upstreamToolName(server: string, tool: string, taken: (name: string) => boolean): string {
  const plain = `mcp__${sanitize(server)}__${sanitize(tool)}`
  if (plain.length <= TOOL_NAME_MAX_CHARS && !taken(plain)) return plain
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)
  return `${plain.slice(0, TOOL_NAME_MAX_CHARS - hash.length - 1)}_${hash}`
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_')
}
