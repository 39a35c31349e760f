import { ProtocolError } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { connect, testHarness, waitUntil, type Connection } from './fixtures.js'

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
