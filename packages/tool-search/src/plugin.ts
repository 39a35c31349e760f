// The tool-search plugin: registers tool_search over the registry's catalog, and its prompt section.
import { z } from 'zod'
import { UNLOADED_NAMES_MAX_BYTES, type PluginContext } from '@dsh/core'
import { TOOL_SEARCH_PROMPT_SECTION } from './prompts.js'
import { SCORINGS } from './scoring.js'
import { CONNECTING_WAIT_MS, createToolSearchTool } from './tool-search.js'

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
  unloadedNamesMaxBytes: z
    .number()
    .int()
    .min(0)
    .max(1024 * 1024)
    .default(UNLOADED_NAMES_MAX_BYTES)
    .describe(
      `Bytes of deferred tools' names tool_search's description carries in a tools/list; past them it gives how many more there are and their MCP servers, so 10,000 upstream tools cost no more than a few. 0 names none. @default ${UNLOADED_NAMES_MAX_BYTES}`,
    ),
  connectingWaitMs: z
    .number()
    .int()
    .min(0)
    .max(120_000)
    .default(CONNECTING_WAIT_MS)
    .describe(
      `Milliseconds a search that finds nothing waits for MCP servers still connecting, then searches again, so a model is not told to try again for a server a moment from ready. 0 answers at once. @default ${CONNECTING_WAIT_MS}`,
    ),
})

/** The plugin's validated config. */
export type ToolSearchConfig = z.output<typeof Config>

/** Registers tool_search and its prompt section. */
export function apply(ctx: PluginContext<(typeof inject)[number]>, config: ToolSearchConfig): void {
  ctx.toolCatalog.limitUnloadedNames(config.unloadedNamesMaxBytes)
  ctx.tools.register(createToolSearchTool(ctx.toolCatalog, config.scoring, config.connectingWaitMs))
  ctx.systemPrompt.add(TOOL_SEARCH_PROMPT_SECTION)
}
