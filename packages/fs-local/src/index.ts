// The public surface of @dsh/fs-local: the plugin (`name`, `inject`, `Config`, `apply`) and the file
// system for hand wiring. Any new export here becomes public API.
export { name, inject, Config, apply } from './plugin.js'
export { createLocalFileSystem } from './file-system.js'
