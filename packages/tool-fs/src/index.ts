// The public surface of @dsh/tool-fs. Any new export here becomes public API.
// The plugin: `import * as toolFs from '@dsh/tool-fs'` and load it with @dsh/core after an `fs` provider.
export { name, inject, apply } from './plugin.js'
export { Config, type ReadConfig } from './config.js'
export { createReadTool, type ReadDeps, type ReadValue } from './read.js'
