import { describe, expect, it } from 'vitest'
import { TOOL_NAME_MAX_CHARS, upstreamToolName } from '../src/upstream/tool-names.js'

const free = () => false

describe('upstreamToolName', () => {
  it('is mcp__<server>__<tool> when both are plain', () => {
    expect(upstreamToolName('github', 'create_issue', free)).toBe('mcp__github__create_issue')
    expect(upstreamToolName('jira', 'get-issue', free)).toBe('mcp__jira__get-issue')
  })

  it('replaces every character a model tool name cannot hold, MCP dots, spaces, controls and non-ASCII included', () => {
    expect(upstreamToolName('my server.v2', 'docs.search', free)).toBe('mcp__my_server_v2__docs_search')
    expect(upstreamToolName('a\nb', 'c\u0000d$(x)é', free)).toBe('mcp__a_b__c_d__x__')
  })

  it('cuts a long name and ends it with a hash of the original names, within the limit', () => {
    const name = upstreamToolName('s'.repeat(40), 't'.repeat(40), free)
    expect(name).toHaveLength(TOOL_NAME_MAX_CHARS)
    expect(name).toMatch(/^mcp__s+__t+_[0-9a-f]{8}$/)
    expect(upstreamToolName('s'.repeat(40), 't'.repeat(40), free)).toBe(name)
    expect(upstreamToolName('s'.repeat(40), `${'t'.repeat(39)}u`, free)).not.toBe(name)
  })

  it('gives a name another tool took a hash of its own, so `a.b` and `a_b` stay two tools', () => {
    const first = upstreamToolName('srv', 'a.b', free)
    const second = upstreamToolName('srv', 'a_b', (name) => name === first)
    expect(first).toBe('mcp__srv__a_b')
    expect(second).toMatch(/^mcp__srv__a_b_[0-9a-f]{8}$/)
  })
})
