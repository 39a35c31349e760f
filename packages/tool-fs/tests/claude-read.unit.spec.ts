// Read of the claude-code profile: read's implementation under Claude Code's name and parameter names.
import { describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as toolFs from '@dsh/tool-fs'
import { FakeFs } from './fake-fs.js'

const agent = { session: { header: { id: 's', cwd: '/work' } } }

async function claudeHarness(fs = new FakeFs()) {
  return loadHarness({ plugins: [toolFs], services: { fs }, config: { 'tool-fs': { profile: 'claude-code' } } })
}

describe('Read', () => {
  it('is registered instead of read, with file_path for path and its own prompt section', async () => {
    const harness = await claudeHarness()
    const [read] = harness.registry.list()
    expect(harness.registry.list().map((t) => t.name)).toEqual(['Read'])
    expect(read!.inputSchema).toMatchObject({
      properties: { file_path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
      required: ['file_path'],
      additionalProperties: false,
    })
    expect(read!.description).toContain('`file_path` is absolute or relative')
    expect(read!.promptSections).toEqual([expect.objectContaining({ id: 'tool-fs/Read', tool: 'Read' })])
    expect(harness.registry.get('Read')!.presentCall!({ file_path: 'a.ts' })).toEqual({ card: 'generic', kind: 'read', title: 'Read a.ts' })
  })

  it('reads through the same implementation, offset and limit included', async () => {
    const fs = new FakeFs()
    const harness = await claudeHarness(fs)
    const whole = await harness.registry.execute('Read', { file_path: 'a.txt' }, { agent })
    expect(whole).toMatchObject({ isError: false, content: expect.stringContaining('only line') })
    await harness.registry.execute('Read', { file_path: '/x/b.txt', offset: 3, limit: 2 }, { agent })
    expect(fs.requests.map(({ path, offset, limit }) => ({ path, offset, limit }))).toEqual([
      { path: '/work/a.txt', offset: 1, limit: 2000 },
      { path: '/x/b.txt', offset: 3, limit: 2 },
    ])
    expect(await harness.registry.execute('Read', { path: 'a.txt' }, { agent })).toMatchObject({
      isError: true,
      errorCode: 'TOOL_INVALID_ARGUMENTS',
    })
  })
})
