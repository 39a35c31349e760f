// A tool name as search reads it: mcp__server__tool, snake_case, kebab-case and camelCase split into words.

/** The words of a tool name, and the whole name as one run of letters. */
export interface NameWords {
  /** Lower-case words, e.g. `['slack', 'send', 'message']` for `mcp__slack__send_message`. */
  parts: string[]
  /** The lower-case name without separators (`mcpslacksendmessage`): what a term written as one word is found in. */
  compact: string
}

const MCP_PREFIX = 'mcp__'

/** Splits a name into words; the `mcp__` prefix every MCP tool shares is no word of it. */
export function parseToolName(name: string): NameWords {
  const body = name.startsWith(MCP_PREFIX) ? name.slice(MCP_PREFIX.length) : name
  const parts = body
    // getPullRequest → get Pull Request; HTTPServer → HTTP Server
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_-]+/)
    .filter((part) => part !== '')
  return { parts, compact: compactTerm(name) }
}

/** Lower case without the separators a name uses, so `send_message` and `sendMessage` find `send-message`. */
export function compactTerm(text: string): string {
  return text.toLowerCase().replace(/[_-]+/g, '')
}
