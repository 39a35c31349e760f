// The spill-local plugin: provides the `spillStore` service.
import type { PluginContext } from '@dsh/core'
import type { z } from 'zod'
import type { Config } from './config.js'
import { createLocalSpillStore } from './store.js'

/** The plugin's name, and its key in a harness config. */
export const name = 'spill-local'

/** Services this plugin needs: none. */
export const inject = [] as const

/** Provides the `spillStore` service: a filesystem store built from the validated config. */
export function apply(ctx: PluginContext, config: z.output<typeof Config>): void {
  ctx.provide('spillStore', createLocalSpillStore(config))
}
