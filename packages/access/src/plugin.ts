// The access plugin: provides the `access` service that glob, grep and read consult before they look.
import type { PluginContext } from '@dsh/core'
import type { AccessConfig } from './config.js'
import { createAccessPolicy } from './policy.js'

/** The plugin's name: its config key. */
export const name = 'access'

/** Services the plugin needs: links are followed through `fs`; `spillStore` is read with `ctx.get`. */
export const inject = ['fs'] as const

/** Provides `access`: the roots and deny rules of the config. */
export function apply(ctx: PluginContext<(typeof inject)[number]>, config: AccessConfig): void {
  ctx.provide('access', createAccessPolicy(config, { fs: ctx.fs, spillStore: () => ctx.get('spillStore') }))
}
