import { ProtocolError } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, loadHarness, type PluginContext } from '@dsh/core'
import { connect, deferringHarness, rawSession, silentLogger, testHarness, waitUntil, type Connection } from './fixtures.js'

let connection: Connection | undefined
afterEach(async () => {
  await connection?.close()
  connection = undefined
})

async function connected(): Promise<Connection & Awaited<ReturnType<typeof testHarness>>> {
  const test = await testHarness()
  connection = await connect(test.harness)
  return { ...connection, ...test }
}

describe('tools/list', () => {
  it('lists every registered tool with its schema, description with prompt sections, title and hints', async () => {
    const { client } = await connected()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['echo', 'fail', 'wait', 'spill'])
    expect(tools[0]).toEqual({
      name: 'echo',
      title: 'Echo',
      description: 'Echoes its text.\n\nUse echo to hear yourself.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })
    expect(tools[1]).toMatchObject({
      name: 'fail',
      description: 'Always fails.',
      annotations: { readOnlyHint: false, openWorldHint: false },
    })
  })
})

describe('wrongly typed tool requests', () => {
  it('answers them with Invalid params (-32602): a cursor that is no string, arguments that are no object', async () => {
    const session = await rawSession((await testHarness()).harness)
    try {
      const invalid = (message: RegExp) => ({
        jsonrpc: '2.0',
        id: expect.any(Number),
        error: { code: -32602, message: expect.stringMatching(message) },
      })
      expect(await session.request('tools/list', { cursor: 5 })).toEqual(invalid(/^Invalid params for tools\/list: cursor: /))
      for (const args of ['text', [1], 7]) {
        expect(await session.request('tools/call', { name: 'echo', arguments: args }), JSON.stringify(args)).toEqual(
          invalid(/^Invalid tools\/call request: .*"arguments"/s),
        )
      }
      expect(await session.request('tools/call', { name: 5 })).toEqual(invalid(/^Invalid tools\/call request: .*"name"/s))
      expect(await session.request('tools/list')).toMatchObject({
        result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'echo' })]) },
      })
    } finally {
      await session.close()
    }
  })
})

describe('tools/call', () => {
  it('returns exactly the model-facing text, run in the session with the fallback cwd', async () => {
    const { client } = await connected()
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } })
    expect(result).toEqual({ content: [{ type: 'text', text: 'hello (session mcp, cwd /fallback)' }], isError: false })
  })

  it("puts a failed call's code in _meta and its message in the text", async () => {
    const { client } = await connected()
    const result = await client.callTool({ name: 'fail', arguments: {} })
    expect(result).toEqual({
      content: [{ type: 'text', text: 'fail always fails; do not call it again' }],
      isError: true,
      _meta: { 'dsh/errorCode': 'TEST_BROKEN' },
    })
  })

  it("returns the registry's argument errors as isError results, missing arguments included", async () => {
    const { client } = await connected()
    const wrong = await client.callTool({ name: 'echo', arguments: { text: 1 } })
    expect(wrong).toMatchObject({ isError: true, _meta: { 'dsh/errorCode': 'TOOL_INVALID_ARGUMENTS' } })
    expect(wrong.content).toEqual([{ type: 'text', text: expect.stringMatching(/^invalid arguments for echo: text: /) }])
    const missing = await client.callTool({ name: 'echo' })
    expect(missing).toMatchObject({ isError: true, _meta: { 'dsh/errorCode': 'TOOL_INVALID_ARGUMENTS' } })
  })

  it('answers an unknown tool with an invalid-params protocol error naming the registered tools', async () => {
    const { client } = await connected()
    const error = await client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({
      code: -32602,
      message: 'no tool named nope; registered tools: echo, fail, wait, spill',
      data: { 'dsh/errorCode': 'TOOL_NOT_FOUND' },
    })
  })

  it('links a spilled result after the text', async () => {
    const { client } = await connected()
    const result = await client.callTool({ name: 'spill', arguments: {} })
    expect(result.content).toEqual([
      { type: 'text', text: 'line 1\n(2 more lines in the spilled result)' },
      expect.objectContaining({
        type: 'resource_link',
        uri: 'dsh-spill://mcp/0001-grep-results.txt',
        name: '0001-grep-results.txt',
        mimeType: 'text/plain',
      }),
    ])
  })

  it("aborts the tool's signal when the client cancels the request", async () => {
    const { client, waits } = await connected()
    const controller = new AbortController()
    const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal })
    expect(await waitUntil(() => waits.length === 1, 5000)).toBe(true)
    expect(waits[0]!.signal.aborted).toBe(false)
    controller.abort(new Error('the user pressed stop'))
    await expect(call).rejects.toThrow('the user pressed stop')
    expect(await waitUntil(() => waits[0]!.signal.aborted, 5000)).toBe(true)
    expect(await waits[0]!.ended).toBe(true)
  })

  it('runs calls concurrently: a second call starts while the first still runs', async () => {
    const { client, waits } = await connected()
    const first = client.callTool({ name: 'wait', arguments: {} })
    const second = client.callTool({ name: 'wait', arguments: {} })
    expect(await waitUntil(() => waits.length === 2, 5000)).toBe(true)
    for (const call of waits) call.release()
    for (const result of await Promise.all([first, second])) expect(result.content).toEqual([{ type: 'text', text: 'released' }])
  })
})

describe('deferred tools', () => {
  const names = (tools: { name: string }[]) => tools.map((t) => t.name)
  const NOT_LISTED = 'Deferred tools not loaded yet (names only; load one with tool_search before calling it)'

  it('lists a deferred tool once tool_search loads it, telling the client the list changed before the result', async () => {
    const refetched: string[][] = []
    connection = await connect(await deferringHarness(), {}, { onToolsChanged: (tools) => refetched.push(names(tools)) })
    const { client, sent } = connection
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true })

    const initial = await client.listTools()
    expect(names(initial.tools)).toEqual(['echo', 'tool_search'])
    expect(initial.tools[1]!.description).toContain(`${NOT_LISTED}: mcp__notes__add_note, mcp__notes__list_notes.`)

    const early = await client.callTool({ name: 'mcp__notes__add_note', arguments: { text: 'milk' } })
    expect(early).toMatchObject({ isError: true, _meta: { 'dsh/errorCode': 'TOOL_NOT_LOADED' } })
    expect(early.content).toEqual([
      { type: 'text', text: expect.stringContaining('load it with tool_search (query "select:mcp__notes__add_note")') },
    ])
    expect(sent.some((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toBe(false)

    const search = await client.callTool({ name: 'tool_search', arguments: { query: 'add note' } })
    expect(search.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Loaded 2 tools; .*\n- mcp__notes__add_note: Add a note to the notebook\./) },
    ])
    const changed = sent.findIndex((m) => 'method' in m && m.method === 'notifications/tools/list_changed')
    const answered = sent.findIndex((m) => 'result' in m && JSON.stringify(m.result).includes('Loaded 2 tools'))
    expect(changed).toBeGreaterThan(-1)
    expect(changed).toBeLessThan(answered)
    expect(await waitUntil(() => refetched.length === 1, 5000)).toBe(true)
    expect(refetched[0]).toEqual(['echo', 'mcp__notes__add_note', 'mcp__notes__list_notes', 'tool_search'])

    const next = await client.listTools()
    expect(next.tools.find((t) => t.name === 'mcp__notes__add_note')).toMatchObject({
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    })
    expect(next.tools.find((t) => t.name === 'tool_search')!.description).not.toContain(NOT_LISTED)
    expect(await client.callTool({ name: 'mcp__notes__add_note', arguments: { text: 'milk' } })).toEqual({
      content: [{ type: 'text', text: 'mcp__notes__add_note: milk' }],
      isError: false,
    })
  })

  it('tells the client only when a call loaded something new', async () => {
    connection = await connect(await deferringHarness())
    const { client, sent } = connection
    const changes = () => sent.filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed').length
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
    await client.callTool({ name: 'tool_search', arguments: { query: 'kubernetes' } })
    expect(changes()).toBe(0)
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__add_note' } })
    expect(changes()).toBe(1)
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__add_note,echo' } })
    expect(changes()).toBe(1)
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__list_notes' } })
    expect(changes()).toBe(2)
  })

  it('serves each session its own loads: a server for another session lists the tool as not loaded', async () => {
    const harness = await deferringHarness()
    connection = await connect(harness, { session: 'first' })
    await connection.client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__add_note' } })
    const other = await connect(harness, { session: 'second' })
    try {
      expect(names((await other.client.listTools()).tools)).toEqual(['echo', 'tool_search'])
      // A server started for a session that already loaded tools lists them and has nothing to announce.
      const again = await connect(harness, { session: 'first' })
      expect(names((await again.client.listTools()).tools)).toEqual(['echo', 'mcp__notes__add_note', 'tool_search'])
      await again.client.callTool({ name: 'echo', arguments: { text: 'hi' } })
      expect(again.sent.some((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toBe(false)
      await again.close()
    } finally {
      await other.close()
    }
  })
})

describe('a tool with a result view', () => {
  const counted = defineTool({
    name: 'count',
    description: 'Counts to n.',
    parameters: z.strictObject({ n: z.number().int() }),
    isReadOnly: true,
    execute: async ({ n }) => ({ content: `${n} paths`, presentationMeta: { n } }),
    presentResult: (result) =>
      result.isError
        ? undefined
        : {
            card: 'search',
            shape: 'paths',
            paths: ['a', 'b'].slice(0, Number((result.meta as { n: number }).n)),
            truncated: false,
            total: 2,
            incomplete: false,
          },
    resultViewSchema: {
      type: 'object',
      properties: { card: { const: 'search' }, paths: { type: 'array', items: { type: 'string' } } },
      required: ['card', 'paths'],
    },
  })

  async function connectedWithCard(): Promise<Connection> {
    const plugin = {
      name: 'count',
      inject: ['tools'] as const,
      Config: z.strictObject({}),
      apply: (ctx: PluginContext<'tools'>) => ctx.tools.register(counted),
    }
    connection = await connect(await loadHarness({ plugins: [plugin], logger: silentLogger() }))
    return connection
  }

  it('declares the view schema as outputSchema and returns the view as structuredContent', async () => {
    const { client } = await connectedWithCard()
    const { tools } = await client.listTools()
    expect(tools[0]?.outputSchema).toEqual(counted.resultViewSchema)
    const result = await client.callTool({ name: 'count', arguments: { n: 1 } })
    expect(result).toEqual({
      content: [{ type: 'text', text: '1 paths' }],
      isError: false,
      structuredContent: { card: 'search', shape: 'paths', paths: ['a'], truncated: false, total: 2, incomplete: false },
    })
  })

  it('returns no structuredContent for a failure', async () => {
    const { client } = await connectedWithCard()
    const result = await client.callTool({ name: 'count', arguments: { n: 'x' } })
    expect(result).toMatchObject({ isError: true })
    expect(result).not.toHaveProperty('structuredContent')
  })
})

describe('a session with no workspace', () => {
  const where = (name: string, usesWorkspace: boolean) =>
    defineTool({
      name,
      description: `Says where ${name} runs.`,
      parameters: z.strictObject({}),
      usesWorkspace,
      execute: async (_args, exec) => ({ content: `${name} in ${exec.agent?.session.header.cwd ?? 'no workspace'}` }),
    })

  async function connectedNowhere(): Promise<Connection> {
    const plugin = {
      name: 'where',
      inject: ['tools'] as const,
      Config: z.strictObject({}),
      apply: (ctx: PluginContext<'tools'>) => {
        ctx.tools.register(where('finds_tools', false))
        ctx.tools.register(where('searches', true))
      },
    }
    connection = await connect(await loadHarness({ plugins: [plugin], logger: silentLogger() }), { fallbackCwd: undefined })
    return connection
  }

  it('runs a tool that uses none, and refuses one that does with how to name one', async () => {
    const { client } = await connectedNowhere()
    expect(await client.callTool({ name: 'finds_tools', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'finds_tools in no workspace' }],
      isError: false,
    })
    const searching = client.callTool({ name: 'searches', arguments: {} })
    await expect(searching).rejects.toThrow(ProtocolError)
    await expect(searching).rejects.toThrow(/no workspace to search: .*start dsh mcp with --cwd DIR/)
  })
})
