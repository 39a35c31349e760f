import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { loadHarness, type Logger } from '@dsh/core'
import * as spillLocal from '@dsh/spill-local'
import { scratchDir } from '../../../test-support/temp-tree.js'

const quiet: Logger = { warn: vi.fn(), info: vi.fn() }
const root = scratchDir('spill-local-plugin')

describe('the spill-local plugin', () => {
  it('provides a working spillStore through the real loader', async () => {
    const harness = await loadHarness({ plugins: [spillLocal], config: { 'spill-local': { root } }, logger: quiet })
    const saved = await harness.get('spillStore')!.saveText({
      owner: 'session',
      source: { toolName: 'glob', callId: 'c1', label: 'result' },
      text: 'a\nb\n',
      filename: 'glob-results.txt',
    })
    expect(saved.locator.startsWith(join(root, 'session') + '/')).toBe(true)
    expect(readFileSync(saved.locator, 'utf8')).toBe('a\nb\n')
  })

  it('fails the load on a bad config value, naming the plugin and the field', async () => {
    const load = loadHarness({ plugins: [spillLocal], config: { 'spill-local': { maxBytesPerOwner: 0 } }, logger: quiet })
    await expect(load).rejects.toMatchObject({
      code: 'PLUGIN_CONFIG_INVALID',
      message: expect.stringMatching(/^plugin spill-local: invalid config: maxBytesPerOwner/),
    })
  })

  it('exports the plugin shape and no default export', () => {
    expect(spillLocal.name).toBe('spill-local')
    expect(spillLocal.inject).toEqual([])
    expect('default' in spillLocal).toBe(false)
  })
})
