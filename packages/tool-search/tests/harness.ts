// The catalog loaded as a harness with tool_search, as a host would load it.
import { z } from 'zod'
import { loadHarness, type Harness, type PluginContext } from '@dsh/core'
import * as toolSearch from '@dsh/tool-search'
import { catalogTools, CATALOG_ROWS, type CatalogRow } from './catalog.js'

/** A harness of the catalog's tools (or the rows given) and tool_search, configured as given. */
export async function catalogHarness(
  rows: readonly (CatalogRow & { isMcp?: boolean })[] = CATALOG_ROWS,
  config: z.input<typeof toolSearch.Config> = {},
): Promise<Harness> {
  const catalog = {
    name: 'catalog',
    inject: ['tools'] as const,
    Config: z.strictObject({}),
    apply(ctx: PluginContext<'tools'>) {
      for (const tool of catalogTools(rows)) ctx.tools.register(tool)
    },
  }
  return loadHarness({ plugins: [catalog, toolSearch], config: { 'tool-search': config } })
}

/** The execute options of a call made in a session. */
export function inSession(id: string) {
  return { agent: { session: { header: { id, cwd: '/work' } } } }
}
