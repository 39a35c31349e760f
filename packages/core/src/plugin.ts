// The plugin shape and the checks the loader runs on each plugin.
import { z } from 'zod'
import { CoreError, errorMessage, HarnessError } from './errors.js'
import type { Logger, ServiceName, Services } from './services.js'

/**
 * What `apply` receives: each injected service as a property, `get` for optional ones, and `provide`
 * to offer a service to the plugins loaded after this one.
 */
export type PluginContext<Injected extends ServiceName = never> = { readonly [K in Injected]: Services[K] } & {
  readonly logger: Logger
  get<K extends ServiceName>(name: K): Services[K] | undefined
  provide<K extends ServiceName>(name: K, service: Services[K]): void
}

/**
 * The shape of a plugin: a namespace module exporting `name`, `inject`, `Config` and `apply`, and no
 * default export (so `import * as plugin` is the only way to use it, and nothing is half-exported).
 */
export interface Plugin<C extends z.ZodType = z.ZodType, Injected extends ServiceName = ServiceName> {
  readonly name: string
  readonly inject: readonly Injected[]
  readonly Config: C
  apply(ctx: PluginContext<Injected>, config: z.output<C>): void | Promise<void>
}

/** A loaded module before validation: anything, as `import * as` yields it. */
export type PluginModule = object

/** Checks a module's export shape and returns it as a plugin, or throws `PLUGIN_INVALID`. */
export function asPlugin(module: PluginModule): Plugin {
  const candidate = module as Partial<Record<keyof Plugin | 'default', unknown>>
  const label = typeof candidate.name === 'string' && candidate.name !== '' ? candidate.name : '<unnamed>'
  const problems: string[] = []
  if (label === '<unnamed>') problems.push('`name` must be a non-empty string')
  if (!Array.isArray(candidate.inject) || !candidate.inject.every((s) => typeof s === 'string')) {
    problems.push('`inject` must be an array of service names')
  }
  if (!(candidate.Config instanceof z.ZodType)) problems.push('`Config` must be a zod schema')
  if (typeof candidate.apply !== 'function') problems.push('`apply` must be a function')
  if ('default' in candidate) problems.push('a plugin must not have a default export')
  if (problems.length > 0) {
    throw new CoreError('PLUGIN_INVALID', `plugin ${label} is not a valid plugin: ${problems.join('; ')}`)
  }
  return module as Plugin
}

/** Describes a zod error as `field: problem; field: problem`, the way a person fixing a config or a call reads it. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`).join('; ')
}

/** Parses one plugin's config with its schema, or throws `PLUGIN_CONFIG_INVALID` naming the fields. */
export function parsePluginConfig(plugin: Plugin, raw: unknown): unknown {
  const parsed = plugin.Config.safeParse(raw ?? {})
  if (parsed.success) return parsed.data
  throw new CoreError('PLUGIN_CONFIG_INVALID', `plugin ${plugin.name}: invalid config: ${describeIssues(parsed.error)}`, {
    cause: parsed.error,
  })
}

/** Runs a plugin's `apply`, turning a throw into `PLUGIN_APPLY_FAILED` that names the plugin. */
export async function applyPlugin(plugin: Plugin, ctx: PluginContext<ServiceName>, config: unknown): Promise<void> {
  try {
    await plugin.apply(ctx, config)
  } catch (error) {
    const reason = errorMessage(error)
    const code = error instanceof HarnessError ? ` [${error.code}]` : ''
    throw new CoreError('PLUGIN_APPLY_FAILED', `plugin ${plugin.name} failed to load${code}: ${reason}`, {
      cause: error,
    })
  }
}
