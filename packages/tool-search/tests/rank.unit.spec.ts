import { beforeAll, describe, expect, it } from 'vitest'
import type { ToolDefinition } from '@dsh/core'
import { TERM_SCORES } from '@dsh/tool-search'
import { parseQuery } from '../src/query.js'
import { rankTools, type SearchableTool } from '../src/rank.js'
import { catalogHarness } from './harness.js'

function rank(tools: readonly SearchableTool[], query: string, maxResults = 5) {
  const parsed = parseQuery(query)
  if (parsed.mode !== 'keywords') throw new Error(`${query} is not a keyword query`)
  return rankTools(tools, parsed, maxResults)
}

describe('rankTools: one tier at a time', () => {
  const notebookEdit = { name: 'notebook_edit', description: 'Edits cells.', isMcp: false }
  const slackPost = { name: 'mcp__slack__post', description: 'Posts.', isMcp: true }
  const hinted = { name: 'cell_tool', description: 'Edits cells.', searchHint: 'jupyter ipynb', isMcp: false }

  it.each([
    ['an exact name part', notebookEdit, 'notebook', TERM_SCORES.namePart],
    ['an exact name part of an MCP tool', slackPost, 'slack', TERM_SCORES.mcpNamePart],
    ['a partial name part', notebookEdit, 'note', TERM_SCORES.partialNamePart],
    ['a partial name part of an MCP tool', slackPost, 'sla', TERM_SCORES.mcpPartialNamePart],
    ['the search hint', hinted, 'jupyter', TERM_SCORES.searchHint],
    ['the whole name, for a term spanning two words', notebookEdit, 'book_ed', TERM_SCORES.fullName],
    ['the whole name, for a compound term', notebookEdit, 'notebookEdit', TERM_SCORES.fullName],
    ['a whole word of the description', notebookEdit, 'cells', TERM_SCORES.description],
    ['nothing, for part of a description word', notebookEdit, 'cell', 0],
    ['nothing, for a separator alone', notebookEdit, '_', 0],
  ])('scores %s', (_, tool, term, score) => {
    expect(rank([tool], term)).toEqual(score === 0 ? [] : [{ name: tool.name, score }])
  })

  it('adds every field a term matches, and every term', () => {
    const tool = { name: 'mcp__jupyter__edit_cell', description: 'Edit a notebook cell.', searchHint: 'notebook ipynb', isMcp: true }
    expect(rank([tool], 'notebook')).toEqual([{ name: tool.name, score: 4 + 2 }])
    expect(rank([tool], 'cell')).toEqual([{ name: tool.name, score: 12 + 2 }])
    expect(rank([tool], 'notebook cell')).toEqual([{ name: tool.name, score: 6 + 14 }])
  })

  it('keeps the weights Claude Code uses', () => {
    expect(TERM_SCORES).toEqual({
      namePart: 10,
      mcpNamePart: 12,
      partialNamePart: 5,
      mcpPartialNamePart: 6,
      searchHint: 4,
      fullName: 3,
      description: 2,
    })
  })
})

describe('rankTools over a catalog of 150 tools', () => {
  let deferred: ToolDefinition[]
  beforeAll(async () => {
    deferred = (await catalogHarness()).registry.deferred()
  })

  it.each([
    // The server and the action: both name parts of one tool, and both in its description.
    ['slack send', ['mcp__slack__send_message', 'mcp__slack__search_messages', 'mcp__slack__add_reaction'], [28, 14, 12]],
    // An MCP server's name part outweighs a built-in's; the built-in's hint and description still count.
    ['notebook jupyter', ['mcp__jupyter__create_notebook', 'mcp__jupyter__read_notebook', 'NotebookEdit'], [26, 26, 18]],
    // camelCase names split into words: linear's createIssue matches all three terms.
    ['issue create linear', ['mcp__linear__createIssue', 'mcp__github__create_issue', 'mcp__jira__create-issue'], [42, 28, 28]],
    // Hyphenated names split too.
    ['transition', ['mcp__jira__transition-issue', 'mcp__jira__get-transitions'], [12, 6]],
    // A compound term finds the whole name in every naming style, ties by name.
    ['createIssue', ['mcp__github__create_issue', 'mcp__jira__create-issue', 'mcp__linear__createIssue'], [3, 3, 3]],
    // A search hint alone.
    ['ipynb', ['NotebookEdit', 'mcp__jupyter__read_notebook'], [4, 4]],
    // "HTTPRequest" is the words http and request.
    ['http', ['HTTPRequest', 'WebFetch'], [12, 4]],
    // Description words match whole: "screenshot" in browser_snapshot's, never "shot" inside it.
    [
      'screenshot',
      ['mcp__playwright__browser_take_screenshot', 'mcp__puppeteer__puppeteer_screenshot', 'mcp__playwright__browser_snapshot'],
      [14, 14, 2],
    ],
    // Regular-expression characters are literal: "c++" is in LSP's description, ".*" and "[" in none.
    ['c++', ['LSP'], [2]],
    ['.*', [], []],
    ['[', [], []],
    ['send|post', [], []],
    ['(issue', [], []],
  ])('ranks %j', (query, names, scores) => {
    const ranked = rank(deferred, query, 3)
    expect(ranked.map((m) => m.name)).toEqual(names)
    expect(ranked.map((m) => m.score)).toEqual(scores)
  })

  it('keeps only the tools every +term matches, scoring them on every term', () => {
    const ranked = rank(deferred, '+github pull request', 50)
    expect(ranked.every((m) => m.name.startsWith('mcp__github__'))).toBe(true)
    expect(ranked.slice(0, 2)).toEqual([
      { name: 'mcp__github__create_pull_request', score: 40 },
      { name: 'mcp__github__create_pull_request_review', score: 40 },
    ])
    expect(rank(deferred, 'pull request', 50).some((m) => !m.name.startsWith('mcp__github__'))).toBe(true)
    expect(rank(deferred, '+jira +sprint', 50).map((m) => m.name)).toEqual(['mcp__jira__create-sprint', 'mcp__jira__get-sprint-issues'])
    expect(rank(deferred, '+jira +nothingmatches issue', 50)).toEqual([])
  })

  it('puts a tool named exactly first, above higher scores', () => {
    const ranked = rank(deferred, 'issue mcp__time__get_current_time')
    expect(ranked[0]).toEqual({ name: 'mcp__time__get_current_time', score: 3 })
    expect(ranked[1]!.score).toBeGreaterThan(3)
    expect(rank(deferred, 'MCP__SLACK__SEND_MESSAGE')[0]!.name).toBe('mcp__slack__send_message')
  })

  it('orders equal scores by name and returns at most maxResults', () => {
    expect(rank(deferred, 'slack', 1)).toEqual([{ name: 'mcp__slack__search_messages', score: 14 }])
    const all = rank(deferred, 'slack', 50)
    expect(all).toHaveLength(15)
    const twelves = all.filter((m) => m.score === 12).map((m) => m.name)
    expect(twelves).toEqual([...twelves].sort())
    expect(twelves).toHaveLength(13)
  })

  it('is the same for the same query, whatever order the tools come in', () => {
    const reversed = [...deferred].reverse()
    for (const query of ['slack', 'issue', 'browser', 'create']) expect(rank(reversed, query, 50)).toEqual(rank(deferred, query, 50))
  })
})
