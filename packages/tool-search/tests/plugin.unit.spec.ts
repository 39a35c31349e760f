import { describe, expect, it } from 'vitest'
import { asPlugin, loadHarness } from '@dsh/core'
import * as toolSearch from '@dsh/tool-search'

describe('the tool-search plugin', () => {
  it('is a namespace plugin: name, inject, Config, apply and no default export', () => {
    expect(asPlugin(toolSearch)).toBe(toolSearch)
    expect(toolSearch.name).toBe('tool-search')
    expect(toolSearch.inject).toEqual(['tools', 'systemPrompt', 'toolCatalog'])
    expect('default' in toolSearch).toBe(false)
  })

  it('registers tool_search, read-only and concurrency-safe, with its schema and prompt section', async () => {
    const harness = await loadHarness({ plugins: [toolSearch] })
    const [listing] = harness.registry.list()
    expect(listing).toMatchObject({
      name: 'tool_search',
      isReadOnly: true,
      isConcurrencySafe: true,
      shouldDefer: false,
      alwaysLoad: false,
      isMcp: false,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', pattern: '\\S' },
          max_results: { type: 'integer', minimum: 1, maximum: 50 },
        },
        required: ['query'],
        additionalProperties: false,
      },
    })
    expect(listing!.description).toMatch(/^Load deferred tools so they can be called\./)
    expect(listing!.promptSections).toEqual([expect.objectContaining({ id: 'tool-search/tool_search', tool: 'tool_search' })])
    expect(harness.registry.listFor('s1')).toEqual(harness.registry.list())
  })

  it('takes one setting, scoring: rarity unless claude-code is asked for', async () => {
    expect(toolSearch.Config.parse({})).toEqual({ scoring: 'rarity' })
    expect(toolSearch.Config.parse({ scoring: 'claude-code' })).toEqual({ scoring: 'claude-code' })
    await expect(loadHarness({ plugins: [toolSearch], config: { 'tool-search': { scoring: 'bm25' } } })).rejects.toThrow(
      /plugin tool-search: invalid config: scoring: Invalid option: expected one of "rarity"\|"claude-code"/,
    )
    await expect(loadHarness({ plugins: [toolSearch], config: { 'tool-search': { maxResults: 3 } } })).rejects.toThrow(
      /plugin tool-search: invalid config: \(root\): Unrecognized key: "maxResults"/,
    )
  })
})
