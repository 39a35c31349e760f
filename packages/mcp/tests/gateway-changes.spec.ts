// The gateway following its upstreams: a list that changes, an HTTP server that goes away and comes back, 10,000 tools, and stderr.
import type { Tool } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, loadHarness, type Harness } from '@dsh/core'
import { startUpstreamGateway, type UpstreamGateway, type UpstreamGatewayOptions, type UpstreamServer } from '@dsh/mcp'
import * as toolSearch from '@dsh/tool-search'
import { connect, silentLogger, waitUntil, type Connection } from './fixtures.js'
import { startDshUpstream } from './upstream/dsh-upstream.js'
import { startHttpUpstream, type HttpUpstream } from './upstream/http-upstream.js'
import { manyServer } from './upstream/servers.js'
import { budgetMs } from '../../../test-support/budget.js'

interface Running {
  harness: Harness
  gateway: UpstreamGateway
  connection: Connection
  log: ReturnType<typeof silentLogger>
  stderr: string[]
  /** The tool lists the host fetched again, each time the server said the list changed. */
  refetched: string[][]
}

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function start(servers: UpstreamServer[], options: Partial<UpstreamGatewayOptions> = {}): Promise<Running> {
  const harness = await loadHarness({ plugins: [toolSearch], logger: silentLogger() })
  const log = silentLogger()
  const stderr: string[] = []
  const gateway = startUpstreamGateway({
    servers,
    registry: harness.registry,
    logger: log,
    clientInfo: { name: 'dsh', version: '9.9.9' },
    stderr: (text) => void stderr.push(text),
    ...options,
  })
  cleanup.push(() => gateway.close())
  const refetched: string[][] = []
  const connection = await connect(harness, { toolChanges: gateway }, { onToolsChanged: (tools) => refetched.push(names(tools)) })
  cleanup.push(() => connection.close())
  return { harness, gateway, connection, log, stderr, refetched }
}

const names = (tools: readonly Pick<Tool, 'name'>[]) => tools.map((t) => t.name)
const changes = (connection: Connection) =>
  connection.sent.filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed').length
const text = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text

describe('the gateway following an upstream whose tools change', () => {
  it("re-reads the list on the upstream's list_changed, tells the host once, and keeps what a session loaded", async () => {
    const { harness, gateway, connection } = await start([manyServer()])
    const { client } = connection
    await gateway.settled
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__many__grow,mcp__many__shrink,mcp__many__tool_1' } })
    const before = changes(connection)
    expect(text(await client.callTool({ name: 'mcp__many__grow', arguments: {} }))).toBe('grow ran')
    expect(await waitUntil(() => harness.registry.get('mcp__many__extra') !== undefined, budgetMs(5000))).toBe(true)
    expect(await waitUntil(() => changes(connection) === before + 1, budgetMs(5000))).toBe(true)
    // Loaded before the change, still loaded after it.
    expect(names((await client.listTools()).tools)).toEqual(expect.arrayContaining(['mcp__many__grow', 'mcp__many__tool_1']))
    expect(text(await client.callTool({ name: 'tool_search', arguments: { query: 'gained' } }))).toContain('- mcp__many__extra:')

    await client.callTool({ name: 'mcp__many__shrink', arguments: {} })
    expect(await waitUntil(() => harness.registry.get('mcp__many__tool_0') === undefined, budgetMs(5000))).toBe(true)
    expect(harness.registry.get('mcp__many__tool_1')).toBeDefined()
  })

  it('keeps the tools it has when the upstream says they changed and then cannot list them, and says so', async () => {
    const { harness, gateway, connection, log } = await start([manyServer()])
    const { client } = connection
    await gateway.settled
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__many__break' } })
    await client.callTool({ name: 'mcp__many__break', arguments: {} })
    expect(
      await waitUntil(
        () => log.lines.some((line) => line.includes('upstream many said its tools changed, but listing them again failed')),
        budgetMs(5000),
      ),
    ).toBe(true)
    expect(log.lines.at(-1)).toMatch(/the list is broken.*; its 6 tools stay as they were$/)
    expect(harness.registry.get('mcp__many__tool_0')).toBeDefined()
  })
})

describe('the gateway in front of a 2026-07-28 upstream', () => {
  it('follows its tool changes, which come on the subscription rather than as list_changed', async () => {
    const inner = await startDshUpstream()
    cleanup.push(() => inner.close())
    const { harness, gateway, connection } = await start([
      { name: 'inner', transport: 'http', url: new URL(inner.url), headers: inner.headers },
    ])
    await gateway.settled
    expect(harness.registry.get('mcp__inner__echo')).toBeDefined()
    const before = changes(connection)
    inner.harness.registry.register(
      defineTool({
        name: 'added',
        description: 'A tool added later.',
        parameters: z.strictObject({}),
        execute: async () => ({ content: 'added ran' }),
      }),
    )
    inner.toolsChanged()
    expect(await waitUntil(() => harness.registry.get('mcp__inner__added') !== undefined, budgetMs(10_000))).toBe(true)
    expect(await waitUntil(() => changes(connection) === before + 1, budgetMs(5000))).toBe(true)
  })
})

describe('the gateway in front of an HTTP upstream that goes away', () => {
  it('notices it stopped answering, drops its tools, retries, and restores them and their loads when it returns', async () => {
    let docs: HttpUpstream = await startHttpUpstream()
    const port = Number(new URL(docs.url).port)
    cleanup.push(() => docs.close())
    const { harness, gateway, connection, log } = await start([{ name: 'docs', transport: 'http', url: new URL(docs.url), headers: {} }], {
      healthIntervalMs: 50,
      retry: { minMs: 20, maxMs: 100 },
    })
    const { client } = connection
    await gateway.settled
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__docs__docs_search' } })
    const before = changes(connection)

    await docs.close()
    expect(await waitUntil(() => harness.registry.get('mcp__docs__docs_search') === undefined, budgetMs(10_000))).toBe(true)
    expect(log.lines).toContainEqual(
      expect.stringMatching(/^warn: upstream docs (stopped answering|closed its connection).*; its 2 tools are removed$/),
    )
    expect(await waitUntil(() => changes(connection) === before + 1, budgetMs(5000))).toBe(true)
    expect(names((await client.listTools()).tools)).not.toContain('mcp__docs__docs_search')

    docs = await startHttpUpstream({ port })
    expect(await waitUntil(() => harness.registry.get('mcp__docs__docs_search') !== undefined, budgetMs(10_000))).toBe(true)
    expect(log.lines).toContain('warn: upstream docs is back; its 2 tools are restored')
    expect(await waitUntil(() => changes(connection) === before + 2, budgetMs(5000))).toBe(true)
    // The session's load came back with the tool: the host can call it again at once.
    expect(names((await client.listTools()).tools)).toContain('mcp__docs__docs_search')
    expect(await client.callTool({ name: 'mcp__docs__docs_search', arguments: { query: 'back' } })).toEqual({
      content: [{ type: 'text', text: 'docs about back' }],
    })
  })
})

describe('the gateway in front of 10,000 tools', () => {
  it(
    'keeps the first tools/list within 12 KB and still finds any of them',
    async () => {
      const { gateway, connection } = await start([manyServer(10_000)], { connectTimeoutMs: budgetMs(60_000) })
      const { client } = connection
      await gateway.settled
      const listed = await client.listTools()
      const bytes = Buffer.byteLength(JSON.stringify(listed))
      expect(bytes).toBeLessThanOrEqual(12 * 1024)
      const description = listed.tools.find((t) => t.name === 'tool_search')!.description!
      expect(description).toMatch(
        /mcp__many__tool_0, mcp__many__tool_1, .*and \d+ more from the MCP servers many; tool_search finds them by keyword\./,
      )
      expect(text(await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__many__tool_9999' } }))).toMatch(
        /^Loaded 1 tool/,
      )
      expect(text(await client.callTool({ name: 'mcp__many__tool_9999', arguments: {} }))).toBe('tool_9999 ran')
    },
    budgetMs(60_000),
  )
})

describe("the gateway and an upstream's stderr", () => {
  it('relays each line under the server name, its escapes removed and a long line cut', async () => {
    const { gateway, stderr } = await start([manyServer(1, 'noisy')])
    await gateway.settled
    expect(await waitUntil(() => stderr.length >= 3, budgetMs(5000))).toBe(true)
    expect(stderr[0]).toBe('[noisy] many started with 1 tools\n')
    expect(stderr[1]).toBe(`[noisy] ${'x'.repeat(2000)}… (line cut)\n`)
    expect(stderr[2]).toBe('[noisy] half a line, then [other] forged\n')
  })
})
