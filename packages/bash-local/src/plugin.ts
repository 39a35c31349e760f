// The bash-local plugin: provides the `bash` service.
import type { PluginContext } from '@dsh/core'
import type { LocalBashSettings } from './config.js'
import { createLocalBash } from './executor.js'

/** The plugin's name, and its key in a harness config. */
export const name = 'bash-local'

/** Services this plugin needs: none. */
export const inject = [] as const

/** Provides the `bash` service: a local executor built from the validated config. */
export function apply(ctx: PluginContext, config: LocalBashSettings): void {
  ctx.provide('bash', createLocalBash(config))
}
