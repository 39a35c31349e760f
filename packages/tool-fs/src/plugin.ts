// The tool-fs plugin: registers the read tool and its prompt section.
import type { PluginContext } from '@dsh/core'
import type { ReadConfig } from './config.js'
import { claudeReadPromptSection, readPromptSection } from './prompts.js'
import { createClaudeReadTool } from './claude-read.js'
import { createReadTool } from './read.js'

/** The plugin's name: its config key. */
export const name = 'tool-fs'

/** Services the plugin needs: files are read through `fs`, never directly; `access` is read with `ctx.get`. */
export const inject = ['tools', 'systemPrompt', 'fs'] as const

/** Registers read (or, with the `claude-code` profile, Read) and its prompt section over the injected file system. */
export function apply(ctx: PluginContext<(typeof inject)[number]>, config: ReadConfig): void {
  const deps = { fs: ctx.fs, access: () => ctx.get('access') }
  if (config.profile === 'claude-code') {
    ctx.tools.register(createClaudeReadTool(deps, config))
    ctx.systemPrompt.add(claudeReadPromptSection(config))
    return
  }
  ctx.tools.register(createReadTool(deps, config))
  ctx.systemPrompt.add(readPromptSection(config))
}
