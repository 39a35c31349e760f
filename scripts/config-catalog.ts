// Writes docs/config.md from every plugin's Config schema (`npm run docs:config`, after a build).
// packages/cli/tests/docs-config.spec.ts fails when the committed file is out of date.
import { writeFileSync } from 'node:fs'
import { renderConfigCatalog } from '@dsh/core'
import { DSH_PLUGINS } from '@dsh/cli'
import * as toolSearch from '@dsh/tool-search'

// tool-search is not among DSH_PLUGINS (dsh loads it only where tools are deferred) but reads --config all the same.
writeFileSync(new URL('../docs/config.md', import.meta.url), renderConfigCatalog([...DSH_PLUGINS, toolSearch]))
