import { describe, expect, it } from 'vitest'
import { compactTerm, parseToolName } from '../src/tool-name.js'

describe('parseToolName', () => {
  it.each([
    ['mcp__slack__send_message', ['slack', 'send', 'message'], 'mcpslacksendmessage'],
    ['mcp__jira__create-issue', ['jira', 'create', 'issue'], 'mcpjiracreateissue'],
    ['mcp__linear__listIssueLabels', ['linear', 'list', 'issue', 'labels'], 'mcplinearlistissuelabels'],
    ['mcp__context7__resolve-library-id', ['context7', 'resolve', 'library', 'id'], 'mcpcontext7resolvelibraryid'],
    ['NotebookEdit', ['notebook', 'edit'], 'notebookedit'],
    ['HTTPRequest', ['http', 'request'], 'httprequest'],
    ['getV2Token', ['get', 'v2', 'token'], 'getv2token'],
    ['LSP', ['lsp'], 'lsp'],
    ['grep', ['grep'], 'grep'],
    ['snake__double_under', ['snake', 'double', 'under'], 'snakedoubleunder'],
  ])('splits %s into %j', (name, parts, compact) => {
    expect(parseToolName(name)).toEqual({ parts, compact })
  })
})

describe('compactTerm', () => {
  it.each([
    ['send_message', 'sendmessage'],
    ['sendMessage', 'sendmessage'],
    ['create-issue', 'createissue'],
    ['__', ''],
  ])('compacts %s to %j', (term, compact) => {
    expect(compactTerm(term)).toBe(compact)
  })
})
