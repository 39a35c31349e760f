import { describe, expect, it } from 'vitest'
import { ToolRegistry } from '@dsh/core'
import { ForwardedAnswer } from '../src/upstream/forwarded.js'
import {
  defineUpstreamTool,
  frontedToolFields,
  hidesText,
  UPSTREAM_CALL_TIMEOUT_MS,
  type UpstreamCaller,
} from '../src/upstream/upstream-tool.js'

class FakeProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

/** A caller whose callTool does `answer`, recording what it was asked. */
function caller(answer: () => Promise<never> | Promise<{ content: [] }>) {
  const calls: unknown[] = []
  const fake: UpstreamCaller = {
    callTool: (params, options) => {
      calls.push({ params, timeout: options.timeout, signal: options.signal })
      return answer()
    },
    isProtocolError: (error): error is FakeProtocolError => error instanceof FakeProtocolError,
  }
  return { fake, calls }
}

const schema = { type: 'object' as const, properties: {} }

describe('defineUpstreamTool', () => {
  it('describes the tool by its title when it has no description, and by nothing when it has neither', () => {
    const { fake } = caller(() => Promise.resolve({ content: [] }))
    expect(defineUpstreamTool('s', 'mcp__s__a', { name: 'a', title: 'The A', inputSchema: schema }, fake).description).toBe('The A')
    expect(defineUpstreamTool('s', 'mcp__s__a', { name: 'a', inputSchema: schema }, fake).description).toBe('')
  })

  it('reads the search hint only when it is text, and a read-only hint as read-only and concurrency-safe', () => {
    const { fake } = caller(() => Promise.resolve({ content: [] }))
    const tool = defineUpstreamTool('s', 'mcp__s__a', { name: 'a', inputSchema: schema, _meta: { 'anthropic/searchHint': 7 } }, fake)
    expect(tool.searchHint).toBeUndefined()
    expect(tool).toMatchObject({ isMcp: true, alwaysLoad: false, isReadOnly: false, isConcurrencySafe: false })
    const readOnly = defineUpstreamTool('s', 'mcp__s__b', { name: 'b', inputSchema: schema, annotations: { readOnlyHint: true } }, fake)
    expect(readOnly).toMatchObject({ isReadOnly: true, isConcurrencySafe: true })
  })

  it('forwards the upstream name, the arguments, the call signal and a long timeout', async () => {
    const { fake, calls } = caller(() => Promise.resolve({ content: [] }))
    const registry = new ToolRegistry()
    registry.register(defineUpstreamTool('s', 'mcp__s__do_it', { name: 'do.it', inputSchema: schema }, fake))
    const controller = new AbortController()
    const result = await registry.execute('mcp__s__do_it', { x: [1, '$(y)'] }, { signal: controller.signal })
    expect(result).toEqual({ isError: false, content: '', value: new ForwardedAnswer({ result: { content: [] } }) })
    expect(calls).toEqual([
      { params: { name: 'do.it', arguments: { x: [1, '$(y)'] } }, timeout: UPSTREAM_CALL_TIMEOUT_MS, signal: expect.any(AbortSignal) },
    ])
  })

  it('forwards a protocol error without data as it came', async () => {
    const { fake } = caller(() => Promise.reject(new FakeProtocolError(-32602, 'bad arguments')))
    const registry = new ToolRegistry()
    registry.register(defineUpstreamTool('s', 'mcp__s__a', { name: 'a', inputSchema: schema }, fake))
    expect((await registry.execute('mcp__s__a', {})).value).toEqual(
      new ForwardedAnswer({ error: { code: -32602, message: 'bad arguments' } }),
    )
  })

  it("names a tool in UPSTREAM_UNAVAILABLE by the upstream's name with its hidden characters escaped", async () => {
    const { fake } = caller(() => Promise.reject(new Error('Connection closed')))
    const registry = new ToolRegistry()
    registry.register(defineUpstreamTool('notes', 'mcp__notes__a_b', { name: 'a\u202e\nb', inputSchema: schema }, fake))
    expect((await registry.execute('mcp__notes__a_b', {})).content).toMatch(/^a\\u202e\\nb on the MCP server notes could not complete: /)
  })

  it('reports a call the connection could not carry as UPSTREAM_UNAVAILABLE, naming the tool and the server', async () => {
    const { fake } = caller(() => Promise.reject(new Error('Connection closed')))
    const registry = new ToolRegistry()
    registry.register(defineUpstreamTool('notes', 'mcp__notes__a', { name: 'a', inputSchema: schema }, fake))
    expect(await registry.execute('mcp__notes__a', {})).toEqual({
      isError: true,
      errorCode: 'UPSTREAM_UNAVAILABLE',
      content:
        'a on the MCP server notes could not complete: Connection closed. Its server may have exited; tool_search shows what is still available.',
    })
  })
})

describe('hidesText', () => {
  it('tells a tool whose name, description, title or search hint the cleaning changes from one it leaves alone', () => {
    expect(hidesText({ name: 'a', description: 'Plain.', title: 'A', inputSchema: schema, _meta: { 'anthropic/searchHint': 'x' } })).toBe(
      false,
    )
    expect(hidesText({ name: 'a', inputSchema: schema, _meta: { 'anthropic/searchHint': 7 } })).toBe(false)
    expect(hidesText({ name: 'a\u200b', inputSchema: schema })).toBe(true)
    expect(hidesText({ name: 'a', description: '\u001b[31mred', inputSchema: schema })).toBe(true)
    expect(hidesText({ name: 'a', title: 'A\u202e', inputSchema: schema })).toBe(true)
    expect(hidesText({ name: 'a', inputSchema: schema, _meta: { 'anthropic/searchHint': 'x\u2066' } })).toBe(true)
  })
})

describe('frontedToolFields', () => {
  it("keeps an upstream tool's title, icons, annotations, _meta and outputSchema, their words cleaned", () => {
    const { fake } = caller(() => Promise.resolve({ content: [] }))
    const tool = defineUpstreamTool(
      's',
      'mcp__s__a',
      {
        name: 'a',
        title: 'The \u202eA',
        icons: [{ src: 'https://example.com/a.png', mimeType: 'image/png' }],
        annotations: { title: 'Annotated\u001b[2J', readOnlyHint: true, openWorldHint: true },
        _meta: { 'vendor/x': 1 },
        inputSchema: schema,
        outputSchema: { type: 'object', properties: { n: { type: 'number', description: 'A count\u200b.' } } },
      },
      fake,
    )
    expect(frontedToolFields(tool)).toEqual({
      title: 'The \\u202eA',
      icons: [{ src: 'https://example.com/a.png', mimeType: 'image/png' }],
      annotations: { title: 'Annotated', readOnlyHint: true, openWorldHint: true },
      _meta: { 'vendor/x': 1 },
      outputSchema: { type: 'object', properties: { n: { type: 'number', description: 'A count\\u200b.' } } },
    })
  })

  it('keeps only what the upstream sent, and knows no other tool', () => {
    const { fake } = caller(() => Promise.resolve({ content: [] }))
    const bare = defineUpstreamTool('s', 'mcp__s__a', { name: 'a', inputSchema: schema, annotations: { destructiveHint: false } }, fake)
    expect(frontedToolFields(bare)).toEqual({ annotations: { destructiveHint: false } })
    expect(frontedToolFields(undefined)).toBeUndefined()
    const registry = new ToolRegistry()
    expect(frontedToolFields(registry.get('nothing'))).toBeUndefined()
  })
})
