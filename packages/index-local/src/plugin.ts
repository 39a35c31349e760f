// The index-local plugin: provides the `searchIndex` service that grep consults before it runs rg.
import type { PluginContext } from '@dsh/core'
import type { z } from 'zod'
import type { Config } from './config.js'
import { createLocalSearchIndex } from './store.js'

/** The plugin's name, and its key in a harness config. */
export const name = 'index-local'

/** Services this plugin needs: the executor that runs its change walk. */
export const inject = ['bash'] as const

/** Provides the `searchIndex` service from the validated config. */
export function apply(ctx: PluginContext<(typeof inject)[number]>, config: z.output<typeof Config>): void {
  ctx.provide('searchIndex', createLocalSearchIndex({ ...config, bash: ctx.bash }))
}
