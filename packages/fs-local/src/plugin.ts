// The fs-local plugin: provides the `fs` service.
import type { PluginContext } from '@dsh/core'
import { z } from 'zod'
import { createLocalFileSystem } from './file-system.js'

/** The plugin's name, and its key in a harness config. */
export const name = 'fs-local'

/** Services this plugin needs: none. */
export const inject = [] as const

/** The plugin's options: none; every limit of a read is the caller's (the read tool's config). */
export const Config = z.strictObject({})

/** Provides the `fs` service: the local file system. */
export function apply(ctx: PluginContext): void {
  ctx.provide('fs', createLocalFileSystem())
}
