import { describe, expect, it } from 'vitest'
import { isDeferredTool, notLoadedError, TOOL_SEARCH_TOOL_NAME, unloadedToolsSection } from '../src/deferral.js'

const tool = { name: 'mcp__slack__send_message', alwaysLoad: false, isMcp: false, shouldDefer: false }

describe('isDeferredTool', () => {
  it.each([
    ['alwaysLoad wins over isMcp', { ...tool, alwaysLoad: true, isMcp: true, shouldDefer: true }, false],
    ['an MCP tool is deferred without asking', { ...tool, isMcp: true }, true],
    ['an MCP tool is deferred even under the search tool name', { ...tool, name: TOOL_SEARCH_TOOL_NAME, isMcp: true }, true],
    ['the search tool is never deferred', { ...tool, name: TOOL_SEARCH_TOOL_NAME, shouldDefer: true }, false],
    ['any other tool is deferred when it says so', { ...tool, shouldDefer: true }, true],
    ['and is not otherwise', tool, false],
  ])('%s', (_, candidate, deferred) => {
    expect(isDeferredTool(candidate)).toBe(deferred)
  })
})

describe('unloadedToolsSection', () => {
  it('names the tools, without schemas, in a section about tool_search', () => {
    expect(unloadedToolsSection(['a', 'b'])).toEqual({
      id: 'core/deferred-tools',
      tool: 'tool_search',
      text: 'Deferred tools not loaded yet (names only; load one with tool_search before calling it): a, b.',
    })
  })

  it('names tools until the bytes run out, then counts the rest and names their MCP servers', () => {
    const names = ['mcp__a__one', 'mcp__b__two', 'plain', 'mcp__c__three']
    // 'mcp__a__one, ' is 13 bytes: one name fits in 13, two in 26.
    expect(unloadedToolsSection(names, 13).text).toBe(
      'Deferred tools not loaded yet (names only; load one with tool_search before calling it): mcp__a__one, and 3 more from the MCP servers b, c; tool_search finds them by keyword.',
    )
    expect(unloadedToolsSection(['plain', 'other'], 7).text).toMatch(/: plain, and 1 more; tool_search finds them by keyword\.$/)
    expect(unloadedToolsSection(names, 1000).text).toMatch(/: mcp__a__one, mcp__b__two, plain, mcp__c__three\.$/)
  })

  it('names at most 20 servers and counts the others, so the tail stays bounded too', () => {
    const names = Array.from({ length: 25 }, (_, at) => `mcp__s${at}__tool`)
    const { text } = unloadedToolsSection(names, 0)
    expect(text).toContain(': 25 more from the MCP servers s0, s1,')
    expect(text).toContain('s19 and 5 more; tool_search')
  })
})

describe('notLoadedError', () => {
  it('tells the model to select the tool with tool_search first', () => {
    expect(notLoadedError('mcp__jira__create_issue')).toMatchObject({
      code: 'TOOL_NOT_LOADED',
      message: expect.stringContaining('load it with tool_search (query "select:mcp__jira__create_issue"), then call it again'),
    })
  })
})
