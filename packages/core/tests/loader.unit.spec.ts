import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { asPlugin, defineTool, loadHarness, stderrLogger, type BashExecutor, type Logger, type PluginContext } from '@dsh/core'

const quiet: Logger = { warn: vi.fn(), info: vi.fn() }
const fakeBash: BashExecutor = { resolve: vi.fn(), run: vi.fn() }

/** A plugin module as `import * as` yields it: a null-prototype namespace with only named exports. */
function namespace(exports: Record<string, unknown>): object {
  return Object.freeze(Object.assign(Object.create(null) as object, exports))
}

const greeter = namespace({
  name: 'greeter',
  inject: ['tools', 'systemPrompt', 'bash'],
  Config: z.strictObject({
    greeting: z.string().min(1).default('hello').describe('What to say. @default "hello"'),
    times: z.number().int().positive().default(1).describe('How often. @default 1'),
  }),
  apply(ctx: PluginContext<'tools' | 'systemPrompt' | 'bash'>, config: { greeting: string; times: number }) {
    ctx.tools.register(
      defineTool({
        name: 'greet',
        description: 'Greets.',
        parameters: z.strictObject({}),
        execute: async () => ({ content: config.greeting.repeat(config.times) }),
      }),
    )
    ctx.systemPrompt.add({ id: 'greeter', tool: 'greet', text: `Say ${config.greeting}.` })
    ctx.logger.info(`bash is ${ctx.bash === fakeBash ? 'the fake' : 'another'}`)
  },
})

describe('loadHarness', () => {
  it('applies plugins with defaulted config and injected services', async () => {
    const harness = await loadHarness({ plugins: [greeter], services: { bash: fakeBash }, logger: quiet })
    expect(await harness.registry.execute('greet', {})).toMatchObject({ content: 'hello' })
    expect(harness.systemPrompt()).toEqual([{ id: 'greeter', tool: 'greet', text: 'Say hello.' }])
    expect(harness.plugins).toEqual(['greeter'])
    expect(harness.get('bash')).toBe(fakeBash)
    expect(quiet.info).toHaveBeenCalledWith('bash is the fake')
  })

  it('passes a plugin its validated config', async () => {
    const harness = await loadHarness({
      plugins: [greeter],
      services: { bash: fakeBash },
      config: { greeter: { greeting: 'hi', times: 2 } },
      logger: quiet,
    })
    expect(await harness.registry.execute('greet', {})).toMatchObject({ content: 'hihi' })
  })

  it('fails on a bad config value, naming the plugin and the field', async () => {
    const load = loadHarness({ plugins: [greeter], services: { bash: fakeBash }, config: { greeter: { times: -1 } } })
    await expect(load).rejects.toMatchObject({ code: 'PLUGIN_CONFIG_INVALID' })
    await expect(load).rejects.toThrow(/^plugin greeter: invalid config: times: Too small/)
  })

  it('fails on an unknown config key, naming the plugin and the key', async () => {
    const load = loadHarness({ plugins: [greeter], services: { bash: fakeBash }, config: { greeter: { greetnig: 'typo' } } })
    await expect(load).rejects.toThrow(/plugin greeter: invalid config: \(root\): Unrecognized key: "greetnig"/)
  })

  it('fails on config for a plugin that is not loaded', async () => {
    const load = loadHarness({ plugins: [greeter], services: { bash: fakeBash }, config: { greter: {}, other: {} } })
    await expect(load).rejects.toThrow('config names greter, other, which are not a loaded plugin (loaded: greeter)')
    await expect(loadHarness({ plugins: [], config: { x: {} } })).rejects.toThrow(
      'config names x, which is not a loaded plugin (loaded: none)',
    )
  })

  it('fails on a missing injected service, naming the plugin and the service', async () => {
    await expect(loadHarness({ plugins: [greeter], logger: quiet })).rejects.toMatchObject({
      code: 'PLUGIN_DEPENDENCY_MISSING',
      message: 'plugin greeter needs the service bash, which no earlier plugin or the host provides',
    })
    const needsTwo = namespace({ ...greeter, inject: ['bash', 'spillStore'] })
    await expect(loadHarness({ plugins: [needsTwo] })).rejects.toThrow('needs the services bash, spillStore')
  })

  it('fails loudly when apply throws, naming the plugin and keeping the cause', async () => {
    const cause = new Error('rg probe could not start')
    const broken = namespace({ ...greeter, name: 'broken', apply: () => Promise.reject(cause) })
    const load = loadHarness({ plugins: [broken], services: { bash: fakeBash } })
    await expect(load).rejects.toMatchObject({
      code: 'PLUGIN_APPLY_FAILED',
      message: 'plugin broken failed to load: rg probe could not start',
      cause,
    })
    const coded = namespace({
      ...greeter,
      name: 'coded',
      apply: () => {
        throw Object.assign(new (class extends Error {})('x'), {})
      },
    })
    await expect(loadHarness({ plugins: [coded], services: { bash: fakeBash } })).rejects.toThrow('plugin coded failed to load: x')
    const stringly = namespace({
      ...greeter,
      name: 'stringly',
      apply: () => {
        throw 'nope'
      },
    })
    await expect(loadHarness({ plugins: [stringly], services: { bash: fakeBash } })).rejects.toThrow('plugin stringly failed to load: nope')
  })

  it('names the code of a HarnessError thrown by apply', async () => {
    const { HarnessError } = await import('@dsh/core')
    const coded = namespace({
      ...greeter,
      name: 'coded',
      apply: () => {
        throw new HarnessError('BASH_SPAWN_FAILED', 'no shell')
      },
    })
    await expect(loadHarness({ plugins: [coded], services: { bash: fakeBash } })).rejects.toThrow(
      'plugin coded failed to load [BASH_SPAWN_FAILED]: no shell',
    )
  })

  it('lets a plugin provide a service to later plugins, and get optional ones', async () => {
    const provider = namespace({
      name: 'provider',
      inject: [],
      Config: z.strictObject({}),
      apply: (ctx: PluginContext) => ctx.provide('bash', fakeBash),
    })
    let optional: unknown = 'unset'
    const reader = namespace({
      name: 'reader',
      inject: ['bash'],
      Config: z.strictObject({}),
      apply: (ctx: PluginContext<'bash'>) => {
        optional = ctx.get('spillStore')
      },
    })
    const harness = await loadHarness({ plugins: [provider, reader], logger: quiet })
    expect(harness.get('bash')).toBe(fakeBash)
    expect(optional).toBeUndefined()
  })

  it('refuses a second provider of the same service', async () => {
    const provider = namespace({
      name: 'p',
      inject: [],
      Config: z.strictObject({}),
      apply: (ctx: PluginContext) => ctx.provide('bash', fakeBash),
    })
    await expect(loadHarness({ plugins: [provider], services: { bash: fakeBash } })).rejects.toThrow(
      /plugin p failed to load \[SERVICE_DUPLICATE\]: plugin p provides bash, which is already provided/,
    )
  })

  it('refuses the same plugin twice', async () => {
    await expect(loadHarness({ plugins: [greeter, greeter] })).rejects.toThrow('plugin greeter is listed twice')
  })
})

describe('asPlugin', () => {
  it('rejects a module with a default export or missing exports, listing every problem', () => {
    expect(() => asPlugin(namespace({ ...greeter, default: {} }))).toThrow(
      'plugin greeter is not a valid plugin: a plugin must not have a default export',
    )
    expect(() => asPlugin(namespace({ name: '', inject: 'tools', Config: {}, apply: 1 }))).toThrow(
      'plugin <unnamed> is not a valid plugin: `name` must be a non-empty string; `inject` must be an array of service names; `Config` must be a zod schema; `apply` must be a function',
    )
    expect(() => asPlugin(namespace({ ...greeter, inject: [1] }))).toThrow('`inject` must be an array')
  })
})

describe('stderrLogger', () => {
  it('writes warnings to stderr and drops info lines', () => {
    const write = vi.spyOn(process.stderr, 'write').mockReturnValue(true)
    stderrLogger.warn('rg not found')
    stderrLogger.info('loaded')
    expect(write).toHaveBeenCalledTimes(1)
    expect(write).toHaveBeenCalledWith('warning: rg not found\n')
    write.mockRestore()
  })
})

describe('the toolCatalog service', () => {
  it('is the registry, so what a search loads is what listing and dispatch read', async () => {
    const harness = await loadHarness({ plugins: [], logger: quiet })
    expect(harness.get('toolCatalog')).toBe(harness.registry)
    expect(harness.get('tools')).toBe(harness.registry)
  })
})
