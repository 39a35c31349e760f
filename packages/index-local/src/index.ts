// The public surface of @dsh/index-local: the plugin (`name`, `inject`, `Config`, `apply`), the index
// for hand wiring, and the build `dsh index` runs. Any new export here becomes public API.
export { name, inject, apply } from './plugin.js'
export { Config, resolveIndexOptions, type LocalIndexOptions, type LocalIndexSettings } from './config.js'
export {
  closeIndexWatchers,
  createLocalSearchIndex,
  type LocalIndexAnswer,
  type LocalSearchIndex,
  type LocalSearchIndexOptions,
} from './store.js'
export { buildIndex, type BuildReport } from './build.js'
export { updateIndex, type IndexReport } from './update.js'
export { IndexError, type IndexErrorCode } from './errors.js'
