// The public surface of @dsh/tool-fs-search. Any new export here becomes public API.
// The plugin: `import * as toolFsSearch from '@dsh/tool-fs-search'` and load it with @dsh/core.
export { name, inject, apply } from './plugin.js'
export { Config, type SearchConfig } from './config.js'
export { SearchError, type SearchErrorCode } from './errors.js'
export type { ProbeCache } from './engine/probe/cache.js'
export { LinkScanMemory } from './engine/link-scan-memory.js'
export type { GlobValue, GrepValue, GrepMatch } from './values.js'
