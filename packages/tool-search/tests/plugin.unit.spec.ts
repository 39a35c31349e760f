import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { asPlugin, defineTool, loadHarness } from '@dsh/core'
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

  it('takes scoring (rarity unless claude-code is asked for), the bytes of names listed, and the wait for servers', async () => {
    const defaults = { unloadedNamesMaxBytes: 2048, connectingWaitMs: 5000 }
    expect(toolSearch.Config.parse({})).toEqual({ scoring: 'rarity', ...defaults })
    expect(toolSearch.Config.parse({ scoring: 'claude-code' })).toEqual({ scoring: 'claude-code', ...defaults })
    expect(() => toolSearch.Config.parse({ unloadedNamesMaxBytes: -1 })).toThrow()
    expect(() => toolSearch.Config.parse({ connectingWaitMs: 1.5 })).toThrow()
    await expect(loadHarness({ plugins: [toolSearch], config: { 'tool-search': { scoring: 'bm25' } } })).rejects.toThrow(
      /plugin tool-search: invalid config: scoring: Invalid option: expected one of "rarity"\|"claude-code"/,
    )
    await expect(loadHarness({ plugins: [toolSearch], config: { 'tool-search': { maxResults: 3 } } })).rejects.toThrow(
      /plugin tool-search: invalid config: \(root\): Unrecognized key: "maxResults"/,
    )
  })

  it("bounds the names tool_search's listing carries by its config", async () => {
    const harness = await loadHarness({ plugins: [toolSearch], config: { 'tool-search': { unloadedNamesMaxBytes: 0 } } })
    for (const name of ['mcp__a__one', 'mcp__b__two']) {
      harness.registry.register(
        defineTool({ name, description: '', parameters: z.strictObject({}), isMcp: true, execute: async () => ({ content: '' }) }),
      )
    }
    const section = harness.registry
      .listFor('s')
      .find((tool) => tool.name === 'tool_search')!
      .promptSections.at(-1)!
    expect(section.text).toBe(
      'Deferred tools not loaded yet (names only; load one with tool_search before calling it): 2 more from the MCP servers a, b; tool_search finds them by keyword.',
    )
  })
})
