// The public surface of @dsh/tool-fs-search. Any new export here becomes public API.
// The plugin: `import * as toolFsSearch from '@dsh/tool-fs-search'` and load it with @dsh/core.
export { name, inject, apply } from './plugin.js'
export { Config, type SearchConfig } from './config.js'
export { SearchError, type SearchErrorCode } from './errors.js'
export { createGlobTool, type GlobContext } from './glob.js'
export type { MtimeLister } from './glob-command.js'
export { createGrepTool } from './grep.js'
export type { SearchContext } from './search-core.js'
