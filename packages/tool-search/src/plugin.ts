// The tool-search plugin: registers tool_search over the registry's catalog, and its prompt section.
import { z } from 'zod'
import type { PluginContext } from '@dsh/core'
import { TOOL_SEARCH_PROMPT_SECTION } from './prompts.js'
import { SCORINGS } from './scoring.js'
import { createToolSearchTool } from './tool-search.js'

/** The plugin's name: its config key. */
export const name = 'tool-search'

/** Services the plugin needs: `toolCatalog` is the registry's discovery side, which core provides. */
export const inject = ['tools', 'systemPrompt', 'toolCatalog'] as const

/** tool_search's configuration; its budgets are the call's `max_results`. */
export const Config = z.strictObject({
  scoring: z
    .enum(SCORINGS)
    .default('rarity')
    .describe(
      'How keywords rank deferred tools: rarity (BM25F over name words, search hint and description, rare words weighing most) or claude-code (the point table of Claude Code\'s ToolSearchTool, as it ranks). @default "rarity"',
    ),
})

/** The plugin's validated config. */
export type ToolSearchConfig = z.output<typeof Config>

/** Registers tool_search and its prompt section. */
export function apply(ctx: PluginContext<(typeof inject)[number]>, config: ToolSearchConfig): void {
  ctx.tools.register(createToolSearchTool(ctx.toolCatalog, config.scoring))
  ctx.systemPrompt.add(TOOL_SEARCH_PROMPT_SECTION)
}
