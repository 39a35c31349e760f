// The tool-fs plugin: registers the read tool and its prompt section.
import type { PluginContext } from '@dsh/core'
import type { ReadConfig } from './config.js'
import { readPromptSection } from './prompts.js'
import { createReadTool } from './read.js'

/** The plugin's name: its config key. */
export const name = 'tool-fs'

/** Services the plugin needs: files are read through `fs`, never directly; `access` is read with `ctx.get`. */
export const inject = ['tools', 'systemPrompt', 'fs'] as const

/** Registers read and its prompt section over the injected file system. */
export function apply(ctx: PluginContext<(typeof inject)[number]>, config: ReadConfig): void {
  ctx.tools.register(createReadTool({ fs: ctx.fs, access: () => ctx.get('access') }, config))
  ctx.systemPrompt.add(readPromptSection(config))
}
