// The public surface of @dsh/spill-local: the plugin (`name`, `inject`, `Config`, `apply`) and the
// store for hand wiring. Any new export here becomes public API.
export { name, inject, apply } from './plugin.js'
export { Config, type LocalSpillOptions } from './config.js'
export { createLocalSpillStore, type LocalSpillStoreOptions } from './store.js'
export { SpillError, type SpillErrorCode } from './errors.js'
