import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderConfigCatalog } from '@dsh/core'
import { DSH_PLUGINS } from '@dsh/cli'
import * as toolSearch from '@dsh/tool-search'

describe('docs/config.md', () => {
  it('lists every config field of every plugin dsh loads, tool-search included (run npm run docs:config when this fails)', () => {
    const committed = readFileSync(new URL('../../../docs/config.md', import.meta.url), 'utf8')
    expect(committed).toBe(renderConfigCatalog([...DSH_PLUGINS, toolSearch]))
  })
})
