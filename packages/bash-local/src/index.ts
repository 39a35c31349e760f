// The public surface of @dsh/bash-local: the plugin (`name`, `inject`, `Config`, `apply`) and the
// executor for hand wiring. Any new export here becomes public API.
export { name, inject, apply } from './plugin.js'
export { Config, type LocalBashOptions, type LocalBashSettings } from './config.js'
export { createLocalBash } from './executor.js'
export { BashError, type BashErrorCode } from './errors.js'
