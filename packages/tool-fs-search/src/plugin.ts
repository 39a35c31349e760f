// The tool-fs-search plugin: probes the executor, then registers glob, grep and their prompt sections.
import type { PluginContext } from '@dsh/core'
import type { SearchConfig } from './config.js'
import { createGlobTool } from './glob/tool.js'
import { createGrepTool } from './grep/tool.js'
import { chooseMtimeLister } from './probe/mtime-helper.js'
import { warnAboveOutputCap } from './probe/output-cap.js'
import { chooseRg, packagedRgPath, rgCandidates } from './probe/ripgrep.js'
import { SEARCH_PROMPT_SECTIONS } from './prompts.js'

/** The plugin's name: its config key. */
export const name = 'tool-fs-search'

/** Services the plugin needs; `spillStore` and `access` are optional and read with `ctx.get`. */
export const inject = ['tools', 'systemPrompt', 'bash'] as const

/**
 * Registers grep when the executor can run ripgrep, and glob when it can also run an mtime helper,
 * each with its prompt section; warns when the executor keeps less output than the configured cap.
 */
export async function apply(ctx: PluginContext<(typeof inject)[number]>, config: SearchConfig): Promise<void> {
  const rg = await chooseRg(ctx.bash, rgCandidates(config.rgPath, await packagedRgPath()), ctx.logger)
  if (rg === undefined) return
  await warnAboveOutputCap(ctx.bash, config, ctx.logger)
  const search = { bash: ctx.bash, rg, config, spillStore: () => ctx.get('spillStore'), access: () => ctx.get('access') }
  const lister = await chooseMtimeLister(ctx.bash, ctx.logger)
  if (lister !== undefined) ctx.tools.register(createGlobTool({ ...search, lister }))
  ctx.tools.register(createGrepTool(search))
  for (const section of SEARCH_PROMPT_SECTIONS) if (lister !== undefined || section.tool !== 'glob') ctx.systemPrompt.add(section)
}
