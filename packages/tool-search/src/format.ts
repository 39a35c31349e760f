// The model-facing text of a tool_search result: what was loaded, what was not found, and why it may not be there yet.
import { cleanUntrustedText } from '@dsh/core'

/** What a result text is built from. */
export interface SearchOutcome {
  /** The tools loaded, with their descriptions, in result order. */
  loaded: readonly { name: string; description: string }[]
  /** Names a `select:` query gave that no tool has. */
  unknown: readonly string[]
  /** MCP servers still connecting, whose tools may not be registered yet. */
  pendingServers: readonly string[]
}

/** The longest one-line description shown, in characters; a longer line is cut and marked. */
export const SUMMARY_MAX_CHARS = 200

/** Renders a result: the loaded tools one per line, then the names not found and the servers still connecting. */
export function formatSearchResult(outcome: SearchOutcome): string {
  const lines: string[] = []
  const missing = outcome.unknown.length === 0 ? '' : `no tool is named ${outcome.unknown.join(', ')}.`
  if (outcome.loaded.length === 0) {
    lines.push(missing === '' ? 'No matching deferred tools found.' : `No matching deferred tools found: ${missing}`)
  } else {
    const count = outcome.loaded.length === 1 ? '1 tool; its schema is' : `${outcome.loaded.length} tools; their schemas are`
    lines.push(`Loaded ${count} in your tool list now:`)
    for (const tool of outcome.loaded) lines.push(`- ${tool.name}: ${summarize(tool.description)}`)
    if (missing !== '') lines.push(`Not found: ${missing}`)
  }
  const unfound = outcome.loaded.length === 0 || outcome.unknown.length > 0
  if (unfound && outcome.pendingServers.length > 0) {
    lines.push(
      `MCP servers still connecting: ${outcome.pendingServers.join(', ')}. Their tools may match once connected; search again shortly.`,
    )
  }
  return lines.join('\n')
}

/**
 * The first non-blank line of a description, cut at SUMMARY_MAX_CHARS. The description is cleaned first
 * (escape sequences removed, hidden characters shown escaped): a tool another program described, an MCP
 * server's that a host registered without the gateway among them, must not hide text in the answer
 * (docs/design.md#upstream-text-is-cleaned).
 */
export function summarize(description: string): string {
  const line =
    cleanUntrustedText(description)
      .split('\n')
      .find((candidate) => candidate.trim() !== '')
      ?.trim() ?? '(no description)'
  const chars = [...line]
  return chars.length <= SUMMARY_MAX_CHARS ? line : `${chars.slice(0, SUMMARY_MAX_CHARS - 1).join('')}…`
}
