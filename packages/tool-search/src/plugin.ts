// The tool-search plugin: registers tool_search over the registry's catalog, and its prompt section.
import { z } from 'zod'
import type { PluginContext } from '@dsh/core'
import { TOOL_SEARCH_PROMPT_SECTION } from './prompts.js'
import { createToolSearchTool } from './tool-search.js'

/** The plugin's name: its config key. */
export const name = 'tool-search'

/** Services the plugin needs: `toolCatalog` is the registry's discovery side, which core provides. */
export const inject = ['tools', 'systemPrompt', 'toolCatalog'] as const

/** tool_search has no configuration: its budgets are the call's `max_results`. */
export const Config = z.strictObject({})

/** Registers tool_search and its prompt section. */
export function apply(ctx: PluginContext<(typeof inject)[number]>): void {
  ctx.tools.register(createToolSearchTool(ctx.toolCatalog))
  ctx.systemPrompt.add(TOOL_SEARCH_PROMPT_SECTION)
}
