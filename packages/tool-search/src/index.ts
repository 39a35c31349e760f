// The public surface of @dsh/tool-search. Any new export here becomes public API.
// The plugin: `import * as toolSearch from '@dsh/tool-search'` and load it with @dsh/core.
export { name, inject, Config, apply } from './plugin.js'
export { createToolSearchTool, type ToolSearchValue } from './tool-search.js'
export { TERM_SCORES, type ScoredTool } from './rank.js'
