import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, HarnessError, ToolRegistry } from '@dsh/core'
import * as toolSearch from '@dsh/tool-search'
import { CALL_TOOL_NAME, defineCallTool } from '../src/upstream/call-tool.js'
import { ForwardedAnswer } from '../src/upstream/forwarded.js'

const inSession = { agent: { session: { header: { id: 's1', cwd: '/w' } } } }

function registry(): ToolRegistry {
  const r = new ToolRegistry()
  r.register(toolSearch.createToolSearchTool(r))
  r.register(defineCallTool(r))
  const forwarded = new ForwardedAnswer({ result: { content: [{ type: 'text', text: 'upstream answer' }] } })
  r.register(
    defineTool({
      name: 'mcp__up__get',
      description: 'Gets.',
      parameters: z.looseObject({}),
      isMcp: true,
      execute: async (args) => ({ content: `got ${JSON.stringify(args)}`, value: forwarded }),
    }),
  )
  r.register(
    defineTool({
      name: 'mcp__up__broken',
      description: 'Breaks.',
      parameters: z.looseObject({}),
      isMcp: true,
      execute: () => Promise.reject(new HarnessError('UPSTREAM_UNAVAILABLE', 'the server went away')),
    }),
  )
  r.register(
    defineTool({
      name: 'mcp__up__text',
      description: 'Text.',
      parameters: z.strictObject({}),
      isMcp: true,
      execute: async () => ({ content: 'plain' }),
    }),
  )
  r.register(
    defineTool({ name: 'own', description: 'Ours.', parameters: z.strictObject({}), execute: async () => ({ content: 'own ran' }) }),
  )
  return r
}

describe('call_tool', () => {
  it('is always listed, beside tool_search, and never deferred', () => {
    const r = registry()
    expect(r.listFor('fresh').map((tool) => tool.name)).toEqual(['tool_search', CALL_TOOL_NAME, 'own'])
  })

  it("calls a loaded deferred tool in the caller's session and hands its value on, so an upstream's answer comes back as sent", async () => {
    const r = registry()
    r.loadDeferred('s1', ['mcp__up__get', 'mcp__up__text'])
    const result = await r.execute(CALL_TOOL_NAME, { name: 'mcp__up__get', arguments: { q: '$(x) "y"' } }, inSession)
    expect(result).toMatchObject({ isError: false, content: 'got {"q":"$(x) \\"y\\""}', value: expect.any(ForwardedAnswer) })
    expect(await r.execute(CALL_TOOL_NAME, { name: 'mcp__up__text' }, inSession)).toEqual({ isError: false, content: 'plain' })
  })

  it("fails as the tool it called does, with that failure's code", async () => {
    const r = registry()
    expect(await r.execute(CALL_TOOL_NAME, { name: 'mcp__up__get', arguments: {} }, inSession)).toMatchObject({
      isError: true,
      errorCode: 'TOOL_NOT_LOADED',
      content: expect.stringContaining('load it with tool_search (query "select:mcp__up__get")'),
    })
    r.loadDeferred('s1', ['mcp__up__broken', 'mcp__up__text'])
    expect(await r.execute(CALL_TOOL_NAME, { name: 'mcp__up__broken', arguments: {} }, inSession)).toMatchObject({
      isError: true,
      errorCode: 'UPSTREAM_UNAVAILABLE',
      content: 'the server went away',
    })
    expect(await r.execute(CALL_TOOL_NAME, { name: 'mcp__up__text', arguments: { extra: 1 } }, inSession)).toMatchObject({
      errorCode: 'TOOL_INVALID_ARGUMENTS',
    })
  })

  it('refuses a tool that is always listed, and a name no deferred tool has, saying what to do', async () => {
    const r = registry()
    for (const [name, code, message] of [
      ['own', 'CALL_TOOL_NOT_DEFERRED', 'own is always in your tool list: call it directly, not through call_tool'],
      ['tool_search', 'CALL_TOOL_NOT_DEFERRED', 'tool_search is always in your tool list'],
      ['mcp__up__nothing\n-- x', 'TOOL_NOT_FOUND', 'no deferred tool is named mcp__up__nothing\n-- x; find it with tool_search'],
    ]) {
      expect(await r.execute(CALL_TOOL_NAME, { name, arguments: {} }, inSession)).toMatchObject({
        isError: true,
        errorCode: code,
        content: expect.stringContaining(message!),
      })
    }
    expect(await r.execute(CALL_TOOL_NAME, { name: '', arguments: {} }, inSession)).toMatchObject({ errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(await r.execute(CALL_TOOL_NAME, { name: 'own', arguments: 'text' }, inSession)).toMatchObject({
      errorCode: 'TOOL_INVALID_ARGUMENTS',
    })
  })

  it('runs without a session too, as a host without sessions calls anything', async () => {
    expect(await registry().execute(CALL_TOOL_NAME, { name: 'mcp__up__text' })).toEqual({ isError: false, content: 'plain' })
  })
})
