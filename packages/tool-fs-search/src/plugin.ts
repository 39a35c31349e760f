// The tool-fs-search plugin: probes for rg, then registers glob, grep and their prompt sections.
import type { PluginContext } from '@dsh/core'
import type { SearchConfig } from './config.js'
import { createGlobTool } from './glob.js'
import { createGrepTool } from './grep.js'
import { chooseRg, packagedRgPath, rgCandidates } from './probe.js'
import { SEARCH_PROMPT_SECTIONS } from './prompts.js'

/** The plugin's name: its config key. */
export const name = 'tool-fs-search'

/** Services the plugin needs; `spillStore` is optional and read with `ctx.get`. */
export const inject = ['tools', 'systemPrompt', 'bash'] as const

/** Registers glob and grep and their prompt sections when the executor can run ripgrep. */
export async function apply(ctx: PluginContext<(typeof inject)[number]>, config: SearchConfig): Promise<void> {
  const rg = await chooseRg(ctx.bash, rgCandidates(config.rgPath, await packagedRgPath()), ctx.logger)
  if (rg === undefined) return
  const search = { bash: ctx.bash, rg, config, spillStore: () => ctx.get('spillStore') }
  ctx.tools.register(createGlobTool(search))
  ctx.tools.register(createGrepTool(search))
  for (const section of SEARCH_PROMPT_SECTIONS) ctx.systemPrompt.add(section)
}
