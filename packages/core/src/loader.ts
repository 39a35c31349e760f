// loadHarness: plugins loaded in order, config validated, services injected, failures named.
import { createToolAvailability } from './availability.js'
import { CoreError } from './errors.js'
import { applyPlugin, asPlugin, parsePluginConfig, type PluginContext, type PluginModule } from './plugin.js'
import { ToolRegistry } from './registry.js'
import type { Logger, PromptSection, ServiceName, Services } from './services.js'

/** What `loadHarness` takes. */
export interface LoadOptions {
  /** Plugin namespace modules, loaded in order: a plugin sees the services earlier ones provided. */
  plugins: readonly PluginModule[]
  /** Config keyed by plugin name; a key naming no loaded plugin is an error (a typo must not pass). */
  config?: Readonly<Record<string, unknown>>
  /** Services the host provides up front (a hand-wired `bash`, say). */
  services?: Partial<Services>
  logger?: Logger
}

/** A loaded harness: its tools, its system prompt, and the services plugins provided. */
export interface Harness {
  readonly registry: ToolRegistry
  readonly plugins: readonly string[]
  /** Every prompt section, in registration order. */
  systemPrompt(): PromptSection[]
  get<K extends ServiceName>(name: K): Services[K] | undefined
}

/** A logger that writes warnings to stderr and drops info lines. */
export const stderrLogger: Logger = {
  warn: (message) => process.stderr.write(`warning: ${message}\n`),
  info: () => undefined,
}

/**
 * Loads plugins in order: validates each module's shape and config (with defaults), checks its
 * injected services exist, then applies it. Any failure rejects with a `CoreError` naming the plugin.
 */
export async function loadHarness(options: LoadOptions): Promise<Harness> {
  const logger = options.logger ?? stderrLogger
  const registry = new ToolRegistry()
  const services = new Map<ServiceName, unknown>(Object.entries(options.services ?? {}) as [ServiceName, unknown][])
  services.set('tools', registry)
  services.set('toolCatalog', registry)
  services.set('systemPrompt', registry)
  services.set('toolAvailability', createToolAvailability())
  services.set('logger', logger)

  const plugins = options.plugins.map(asPlugin)
  const names = new Set<string>()
  for (const plugin of plugins) {
    if (names.has(plugin.name)) throw new CoreError('PLUGIN_INVALID', `plugin ${plugin.name} is listed twice`)
    names.add(plugin.name)
  }
  const unknown = Object.keys(options.config ?? {}).filter((key) => !names.has(key))
  if (unknown.length > 0) {
    throw new CoreError(
      'PLUGIN_CONFIG_INVALID',
      `config names ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not a loaded plugin (loaded: ${[...names].join(', ') || 'none'})`,
    )
  }

  for (const plugin of plugins) {
    const config = parsePluginConfig(plugin, options.config?.[plugin.name])
    const missing = plugin.inject.filter((name) => !services.has(name))
    if (missing.length > 0) {
      throw new CoreError(
        'PLUGIN_DEPENDENCY_MISSING',
        `plugin ${plugin.name} needs the service${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which no earlier plugin or the host provides`,
      )
    }
    const ctx = {
      logger,
      get: (name: ServiceName) => services.get(name),
      provide: (name: ServiceName, service: unknown) => {
        if (services.has(name)) {
          throw new CoreError('SERVICE_DUPLICATE', `plugin ${plugin.name} provides ${name}, which is already provided`)
        }
        services.set(name, service)
      },
    } as Record<string, unknown>
    for (const name of plugin.inject) ctx[name] = services.get(name)
    await applyPlugin(plugin, ctx as unknown as PluginContext<ServiceName>, config)
  }

  return {
    registry,
    plugins: [...names],
    systemPrompt: () => registry.sections(),
    get: <K extends ServiceName>(name: K) => services.get(name) as Services[K] | undefined,
  }
}
