// The public surface of @dsh/access. Any new export here becomes public API.
// The plugin: `import * as access from '@dsh/access'` and load it after a FileSystem provider.
export { name, inject, apply } from './plugin.js'
export { Config, type AccessConfig } from './config.js'
export { createAccessPolicy, type AccessDeps } from './policy.js'
