import { ProtocolError, ResourceNotFoundError, type ResourceLink } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import type { SpillStore } from '@dsh/core'
import { connect, rawSession, SPILLED, testHarness, type Connection } from './fixtures.js'

let connection: Connection | undefined
afterEach(async () => {
  await connection?.close()
  connection = undefined
})

async function spilled(options: Parameters<typeof testHarness>[0] = {}, locator = SPILLED) {
  const test = await testHarness(options)
  connection = await connect(test.harness)
  const result = await connection.client.callTool({ name: 'spill', arguments: { locator } })
  return { client: connection.client, link: result.content[1] as ResourceLink, texts: test.texts }
}

describe('spilled results as resources', () => {
  it('lists the spill URI template', async () => {
    const test = await testHarness()
    connection = await connect(test.harness)
    const { resourceTemplates } = await connection.client.listResourceTemplates()
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'dsh-spill://{session}/{name}', name: 'spilled-result', mimeType: 'text/plain' }),
    ])
  })

  it('reads back the complete text a resource_link names', async () => {
    const { client, link } = await spilled()
    const { contents } = await client.readResource({ uri: link.uri })
    expect(contents).toEqual([{ uri: link.uri, mimeType: 'text/plain', text: 'line 1\nline 2\nline 3\n' }])
  })

  it('lists the results this server spilled, and only those', async () => {
    const { client, link } = await spilled()
    const { resources } = await client.listResources()
    expect(resources).toEqual([{ uri: link.uri, name: link.name, description: link.description, mimeType: 'text/plain' }])
  })

  it('reads a link another process issued when the store holds its result, by owner and name', async () => {
    const { client, texts } = await spilled()
    texts.set('/spill/other session/0123456789ab-grep.txt', 'from elsewhere\n')
    const uri = 'dsh-spill://other%20session/0123456789ab-grep.txt'
    expect((await client.readResource({ uri })).contents).toEqual([{ uri, mimeType: 'text/plain', text: 'from elsewhere\n' }])
  })

  it('answers a URI whose result the store does not hold with resource-not-found, even one the template matches', async () => {
    const { client } = await spilled()
    for (const uri of [
      'dsh-spill://mcp/0002-grep-results.txt',
      'dsh-spill://mcp/..%2F..%2Fetc%2Fpasswd',
      'dsh-spill://mcp/%E0%A4%A',
      'dsh-spill://mcp/a/b',
      'file:///etc/passwd',
    ]) {
      const error = await client.readResource({ uri }).catch((e: unknown) => e)
      expect(error, uri).toBeInstanceOf(ResourceNotFoundError)
      expect(error).toMatchObject({ code: -32602, data: { uri } })
    }
  })

  it("passes on the store's message and code when the saved text is gone", async () => {
    const { client, link, texts } = await spilled()
    texts.clear()
    const error = await client.readResource({ uri: link.uri }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    expect(error).toMatchObject({
      code: -32603,
      message: `cannot read ${link.uri}: no saved result at ${SPILLED}; run the search again`,
      data: { uri: link.uri, 'dsh/errorCode': 'SPILL_NOT_FOUND' },
    })
  })

  it('reports a store failure that is no HarnessError without a code', async () => {
    const broken: SpillStore = {
      saveText: () => Promise.reject(new Error('unused')),
      saveStream: () => Promise.reject(new Error('unused')),
      readText: () => Promise.reject('disk on fire'),
      holds: () => Promise.resolve(false),
      locate: () => Promise.resolve(undefined),
    }
    const { client, link } = await spilled({ spillStore: broken })
    const error = await client.readResource({ uri: link.uri }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: -32603, message: `cannot read ${link.uri}: disk on fire`, data: { uri: link.uri } })
  })

  it('serves nothing when the harness has no spill store', async () => {
    const { client, link } = await spilled({ spillStore: false })
    await expect(client.readResource({ uri: link.uri })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe("the search card's MCP App page", () => {
  it('is listed first and read as the MCP App type when the server has it, and is no resource otherwise', async () => {
    const test = await testHarness()
    connection = await connect(test.harness, { searchCardAppHtml: '<!doctype html><p>card</p>' })
    const uri = 'ui://dsh/search-card.html'
    expect((await connection.client.listResources()).resources[0]).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app' })
    expect((await connection.client.readResource({ uri })).contents).toEqual([
      { uri, mimeType: 'text/html;profile=mcp-app', text: '<!doctype html><p>card</p>' },
    ])
    await connection.close()
    connection = await connect(test.harness)
    expect((await connection.client.listResources()).resources).toEqual([])
    await expect(connection.client.readResource({ uri })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })
})

describe('wrongly typed resource requests', () => {
  it('answers them with Invalid params (-32602) naming the field, and answers the next request', async () => {
    const session = await rawSession((await testHarness()).harness)
    try {
      const invalid = (method: string, field: string) => ({
        jsonrpc: '2.0',
        id: expect.any(Number),
        error: { code: -32602, message: expect.stringMatching(new RegExp(`^Invalid params for ${method}: ${field}: `)) },
      })
      expect(await session.request('resources/read', { uri: 5 })).toEqual(invalid('resources/read', 'uri'))
      expect(await session.request('resources/read', {})).toEqual(invalid('resources/read', 'uri'))
      expect(await session.request('resources/read')).toEqual(invalid('resources/read', 'uri'))
      expect(await session.request('resources/list', { cursor: 5 })).toEqual(invalid('resources/list', 'cursor'))
      expect(await session.request('resources/templates/list', { cursor: [] })).toEqual(invalid('resources/templates/list', 'cursor'))
      expect(await session.request('resources/templates/list', { _meta: {} })).toMatchObject({
        result: { resourceTemplates: [expect.objectContaining({ name: 'spilled-result' })] },
      })
    } finally {
      await session.close()
    }
  })
})
