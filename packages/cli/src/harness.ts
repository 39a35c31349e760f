// The plugins `dsh` loads and how command-line options reach their config.
import * as access from '@dsh/access'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type Logger, type PluginModule } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as indexLocal from '@dsh/index-local'
import * as mcp from '@dsh/mcp/plugin'
import * as spillLocal from '@dsh/spill-local'
import * as toolFs from '@dsh/tool-fs'
import * as toolFsSearch from '@dsh/tool-fs-search'
import * as toolSearch from '@dsh/tool-search'

/**
 * Every plugin `dsh` loads, in load order: the providers (executor, store, filesystem, access policy, index)
 * before the tools that use them. A tool is a package plus one line here; the CLI and `dsh mcp` serve it from
 * its schema. tool_search is not among them: it is loaded only when there are deferred tools to find
 * (`createDshHarness`'s `toolSearch`), since alone it would be a tool in every listing that finds nothing.
 * The mcp plugin registers nothing: it holds `dsh mcp`'s own settings, and is loaded for every command
 * so that one config file serves them all (the MCP SDK itself loads only for `dsh mcp`).
 */
export const DSH_PLUGINS = [bashLocal, spillLocal, fsLocal, access, indexLocal, toolFsSearch, toolFs, mcp] as const

/** What `createDshHarness` takes: the config file's object and the command-line overrides. */
export interface DshHarnessOptions {
  config: Record<string, unknown>
  spillDir?: string
  /** `--profile`: the tool surface, set on the plugins that offer one (tool-fs-search, tool-fs). */
  profile?: string
  /** Roots added to the access policy's (`dsh --root`), absolute. */
  roots?: readonly string[]
  logger?: Logger
  /**
   * The tools served: dsh's own (DSH_PLUGINS), with tool_search when deferred tools will be registered
   * (upstream MCP servers register theirs once connected: docs/design.md#the-gateway); or only a
   * catalog's tools and tool_search, for `dsh tool-search --catalog`, where dsh's own tools would only
   * collide with a catalog's built-ins. @default { kind: 'dsh', toolSearch: false }
   */
  toolSet?: ToolSet
  /** Remembers the executor probe's answer across harnesses (the `probeCache` service): only for the default local executor. */
  probeCache?: toolFsSearch.ProbeCache
  /** Keeps link scans across harnesses (the `linkScanMemory` service): only for the default local executor. */
  linkScanMemory?: toolFsSearch.LinkScanMemory
  /**
   * The process serves many calls (`dsh mcp`, the warm server): the index keeps a watcher of each
   * indexed tree it searches, unless the config file says `index-local.watch`. @default false
   */
  warm?: boolean
}

/** Which tools a harness serves: see `DshHarnessOptions.toolSet`. */
export type ToolSet = { kind: 'dsh'; toolSearch: boolean } | { kind: 'catalog'; catalog: PluginModule }

/** Loads the plugins `dsh` serves, with `--spill-dir`, `--profile` and `--root` applied over the config file. */
export async function createDshHarness(options: DshHarnessOptions): Promise<Harness> {
  const config = { ...options.config }
  if (options.spillDir !== undefined) {
    config[spillLocal.name] = { ...(config[spillLocal.name] as object | undefined), root: options.spillDir }
  }
  if (options.profile !== undefined) {
    for (const plugin of [toolFsSearch.name, toolFs.name]) {
      config[plugin] = { ...(config[plugin] as object | undefined), profile: options.profile }
    }
  }
  if (options.roots !== undefined && options.roots.length > 0) {
    const policy = (config[access.name] ?? {}) as { roots?: unknown }
    // Added to the configured roots, or to the default one, the session cwd.
    const roots: unknown[] = Array.isArray(policy.roots) ? (policy.roots as unknown[]) : ['.']
    config[access.name] = { ...policy, roots: [...roots, ...options.roots] }
  }
  if (options.warm === true) {
    const index = config[indexLocal.name] ?? {}
    // Anything but an object is left for the plugin's config check to refuse.
    if (typeof index === 'object') config[indexLocal.name] = { watch: true, ...index }
  }
  const set = options.toolSet ?? { kind: 'dsh', toolSearch: false }
  const plugins = set.kind === 'catalog' ? [set.catalog, toolSearch] : [...DSH_PLUGINS, ...(set.toolSearch ? [toolSearch] : [])]
  return loadHarness({
    plugins,
    config,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    services: {
      ...(options.probeCache === undefined ? {} : { probeCache: options.probeCache }),
      ...(options.linkScanMemory === undefined ? {} : { linkScanMemory: options.linkScanMemory }),
    },
  })
}
