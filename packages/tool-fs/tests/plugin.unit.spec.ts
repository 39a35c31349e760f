import { describe, expect, it } from 'vitest'
import { asPlugin, loadHarness } from '@dsh/core'
import * as toolFs from '@dsh/tool-fs'
import { FakeFs } from './fake-fs.js'

describe('the tool-fs plugin', () => {
  it('is a namespace plugin: name, inject, Config, apply and no default export', () => {
    expect(asPlugin(toolFs)).toBe(toolFs)
    expect(toolFs.name).toBe('tool-fs')
    expect(toolFs.inject).toEqual(['tools', 'systemPrompt', 'fs'])
    expect('default' in toolFs).toBe(false)
  })

  it('registers read, read-only and concurrency-safe, with its prompt section', async () => {
    const harness = await loadHarness({ plugins: [toolFs], services: { fs: new FakeFs() } })
    const [read] = harness.registry.list()
    expect(harness.registry.list()).toHaveLength(1)
    expect(read).toMatchObject({
      name: 'read',
      isReadOnly: true,
      isConcurrencySafe: true,
      timeoutMs: 30_000,
      searchHint: expect.stringContaining('file'),
    })
    expect(read!.promptSections).toEqual([expect.objectContaining({ id: 'tool-fs/read', tool: 'read' })])
    expect(read!.description).toContain('Shows 2000 lines from the start')
    expect(read!.inputSchema).toMatchObject({
      properties: {
        path: { type: 'string', minLength: 1 },
        offset: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 2000 },
      },
      required: ['path'],
      additionalProperties: false,
    })
  })

  it('takes its numbers from the config: the description, the prompt, the limit ceiling and the timeout', async () => {
    const config = { readMaxLines: 100, readMaxLineBytes: 300, readMaxBytes: 4000, timeoutMs: 5000 }
    const harness = await loadHarness({ plugins: [toolFs], services: { fs: new FakeFs() }, config: { 'tool-fs': config } })
    const [read] = harness.registry.list()
    expect(read).toMatchObject({ timeoutMs: 5000, inputSchema: { properties: { limit: { maximum: 100 } } } })
    expect(read!.description).toMatch(/Shows 100 lines .* passing 4000 bytes .* longer than 300 bytes/)
    expect(harness.systemPrompt()[0]!.text).toContain('A line cut at 300 bytes cannot be shown whole')
  })

  it('needs an fs provider loaded before it', async () => {
    await expect(loadHarness({ plugins: [toolFs] })).rejects.toMatchObject({
      code: 'PLUGIN_DEPENDENCY_MISSING',
      message: 'plugin tool-fs needs the service fs, which no earlier plugin or the host provides',
    })
  })
})
