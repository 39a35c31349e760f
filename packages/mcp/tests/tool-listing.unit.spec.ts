import { describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { toMcpTool, toolAnnotations, toolDescription, toolTitle } from '../src/tool-listing.js'

const listing: ToolListing = {
  name: 'grep',
  description: 'Search file contents.',
  inputSchema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'], additionalProperties: false },
  isReadOnly: true,
  isConcurrencySafe: true,
  shouldDefer: false,
  alwaysLoad: false,
  isMcp: false,
  usesWorkspace: true,
  promptSections: [
    { id: 'a', tool: 'grep', text: 'Use grep to search.' },
    { id: 'b', tool: 'grep', text: 'Use read for context.' },
  ],
}

describe('toMcpTool', () => {
  it('carries the JSON Schema unchanged', () => {
    expect(toMcpTool(listing)).toEqual({
      name: 'grep',
      title: 'Grep',
      description: 'Search file contents.\n\nUse grep to search.\n\nUse read for context.',
      inputSchema: listing.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })
  })

  it("declares the search card's App page, in both forms hosts read, only for a tool with a result view when the App is served", () => {
    const viewed = { ...listing, resultViewSchema: { type: 'object' } }
    const uri = 'ui://dsh/search-card.html'
    expect(toMcpTool(viewed, true)._meta).toEqual({ ui: { resourceUri: uri }, 'ui/resourceUri': uri })
    expect(toMcpTool(viewed)).not.toHaveProperty('_meta')
    expect(toMcpTool(listing, true)).not.toHaveProperty('_meta')
  })
})

describe('toolDescription', () => {
  it('is the bare description when no prompt section is about the tool', () => {
    expect(toolDescription({ ...listing, promptSections: [] })).toBe('Search file contents.')
  })
})

describe('toolTitle', () => {
  it.each([
    ['grep', 'Grep'],
    ['tool_search', 'Tool search'],
    ['read-file', 'Read file'],
    ['Glob', 'Glob'],
  ])('titles %s as %s', (name, title) => {
    expect(toolTitle(name)).toBe(title)
  })
})

describe('toolAnnotations', () => {
  it('claims nothing beyond read-only and closed-world for a tool that may write', () => {
    expect(toolAnnotations({ ...listing, isReadOnly: false })).toEqual({ readOnlyHint: false, openWorldHint: false })
  })

  it('leaves the open-world hint to its default for a tool fronted from another MCP server', () => {
    expect(toolAnnotations({ ...listing, isMcp: true })).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
  })
})
