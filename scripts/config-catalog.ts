// Writes docs/config.md from every plugin's Config schema (`npm run docs:config`, after a build).
// packages/cli/tests/docs-config.spec.ts fails when the committed file is out of date.
import { writeFileSync } from 'node:fs'
import { renderConfigCatalog } from '@dsh/core'
import { DSH_PLUGINS } from '@dsh/cli'

writeFileSync(new URL('../docs/config.md', import.meta.url), renderConfigCatalog(DSH_PLUGINS))
