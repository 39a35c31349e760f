// The public surface of @dsh/tool-search. Any new export here becomes public API.
// The plugin: `import * as toolSearch from '@dsh/tool-search'` and load it with @dsh/core.
export { name, inject, Config, apply, type ToolSearchConfig } from './plugin.js'
export { createToolSearchTool, type ToolSearchValue } from './tool-search.js'
export type { ScoredTool, TermEvidence, FieldMatch } from './rank.js'
export { TERM_SCORES } from './claude-code-rank.js'
export { RARITY_WEIGHTS } from './rarity-rank.js'
export { SCORINGS, type Scoring } from './scoring.js'
