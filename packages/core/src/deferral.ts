// Deferred tools (docs/design.md#deferred-tools): which tools wait for tool_search, and what a session hears of them.
import { CoreError } from './errors.js'
import type { PromptSection } from './services.js'
import type { ToolDefinition } from './tool.js'

/** The name of the tool that loads deferred tools; it is never deferred itself. */
export const TOOL_SEARCH_TOOL_NAME = 'tool_search'

/**
 * Whether a tool's schema waits until tool_search loads it, decided in Claude Code's order: `alwaysLoad`
 * never waits; an MCP tool does (it serves one workflow of many); the tool that loads the others never
 * does; any other tool does when it sets `shouldDefer`.
 */
export function isDeferredTool(tool: Pick<ToolDefinition, 'name' | 'alwaysLoad' | 'isMcp' | 'shouldDefer'>): boolean {
  if (tool.alwaysLoad) return false
  if (tool.isMcp) return true
  if (tool.name === TOOL_SEARCH_TOOL_NAME) return false
  return tool.shouldDefer
}

/** The prompt section, about tool_search, that names the deferred tools a session has not loaded. */
export function unloadedToolsSection(names: readonly string[]): PromptSection {
  return {
    id: 'core/deferred-tools',
    tool: TOOL_SEARCH_TOOL_NAME,
    text: `Deferred tools not loaded yet (names only; load one with ${TOOL_SEARCH_TOOL_NAME} before calling it): ${names.join(', ')}.`,
  }
}

/** The error for a call to a deferred tool its session has not loaded: it says how to load it. */
export function notLoadedError(name: string): CoreError {
  return new CoreError(
    'TOOL_NOT_LOADED',
    `${name} is a deferred tool not loaded in this session; load it with ${TOOL_SEARCH_TOOL_NAME} (query "select:${name}"), then call it again`,
  )
}
