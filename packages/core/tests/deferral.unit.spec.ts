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
})

describe('notLoadedError', () => {
  it('tells the model to select the tool with tool_search first', () => {
    expect(notLoadedError('mcp__jira__create_issue')).toMatchObject({
      code: 'TOOL_NOT_LOADED',
      message: expect.stringContaining('load it with tool_search (query "select:mcp__jira__create_issue"), then call it again'),
    })
  })
})
