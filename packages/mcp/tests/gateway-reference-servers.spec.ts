// The gateway in front of the reference servers (server-everything, server-filesystem), driven by the official client as a host.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client, InMemoryTransport, type ClientCapabilities, type Tool } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadHarness, type Harness } from '@dsh/core'
import { createDshMcpServer, startUpstreamGateway, type UpstreamGateway, type UpstreamServer } from '@dsh/mcp'
import * as toolSearch from '@dsh/tool-search'
import { silentLogger } from './fixtures.js'
import { budgetMs } from '../../../test-support/budget.js'

const require = createRequire(import.meta.url)
/** A reference server's program, resolved from the dev dependency installed by its package name. */
const program = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`)

/** The host's answers to what the upstreams ask, and what it was asked. */
interface Host {
  client: Client
  asked: string[]
  close(): Promise<void>
}

/** A host (the official client) connected to a fresh server over the gateway's registry, offering `capabilities`. */
async function connectHost(
  harness: Harness,
  gateway: UpstreamGateway,
  capabilities: ClientCapabilities,
  roots: string[] = [],
): Promise<Host> {
  const server = createDshMcpServer({
    harness,
    fallbackCwd: '/fallback',
    session: `host-${Math.random()}`,
    name: 'dsh',
    version: '9.9.9',
    logger: silentLogger(),
    toolChanges: gateway,
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const asked: string[] = []
  const client = new Client({ name: 'reference-host', version: '1.0.0' }, { capabilities })
  if (capabilities.sampling !== undefined) {
    client.setRequestHandler('sampling/createMessage', (request) => {
      asked.push(`sampling: ${JSON.stringify(request.params.messages[0]?.content)}`)
      return { model: 'host-model', role: 'assistant', content: { type: 'text', text: 'the host model says hi' } }
    })
  }
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(`elicitation: ${request.params.message}`)
      return { action: 'accept', content: { name: 'Ada Lovelace' } }
    })
  }
  if (capabilities.roots !== undefined) {
    client.setRequestHandler('roots/list', () => {
      asked.push('roots')
      return { roots: roots.map((root) => ({ uri: `file://${root}`, name: path.basename(root) })) }
    })
  }
  await server.connect(serverSide)
  await client.connect(clientSide)
  return { client, asked, close: () => client.close() }
}

const names = (tools: readonly Pick<Tool, 'name'>[]) => tools.map((t) => t.name)
const texts = (result: { content: unknown }) =>
  (result.content as { type: string; text?: string }[]).flatMap((c) => (c.type === 'text' ? [c.text!] : []))

describe('the gateway in front of server-everything and server-filesystem', () => {
  let harness: Harness
  let gateway: UpstreamGateway
  let workspace: string
  let host: Host
  const stderr: string[] = []
  const cleanup: (() => Promise<unknown>)[] = []

  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-gateway-')))
    await writeFile(path.join(workspace, 'notes.txt'), 'first line\nsecond line\n')
    harness = await loadHarness({ plugins: [toolSearch], logger: silentLogger() })
    const servers: UpstreamServer[] = [
      { name: 'everything', transport: 'stdio', command: process.execPath, args: [program('server-everything'), 'stdio'], env: {} },
      { name: 'filesystem', transport: 'stdio', command: process.execPath, args: [program('server-filesystem'), workspace], env: {} },
    ]
    gateway = startUpstreamGateway({
      servers,
      registry: harness.registry,
      logger: silentLogger(),
      clientInfo: { name: 'dsh', version: '9.9.9' },
      stderr: (text) => void stderr.push(text),
    })
    cleanup.push(
      () => gateway.close(),
      () => rm(workspace, { recursive: true, force: true }),
    )
    host = await connectHost(harness, gateway, { sampling: {}, elicitation: { form: {} }, roots: {} }, [workspace])
    cleanup.push(() => host.close())
    await gateway.settled
  }, budgetMs(60_000))

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step()
  })

  async function load(...tools: string[]): Promise<Tool[]> {
    await host.client.callTool({ name: 'tool_search', arguments: { query: `select:${tools.join(',')}` } })
    const listed = (await host.client.listTools()).tools
    return tools.map((name) => listed.find((tool) => tool.name === name)!)
  }

  it("names both servers' tools in tool_search and lists none of them until loaded", async () => {
    const { tools } = await host.client.listTools()
    expect(names(tools)).toEqual(['tool_search', 'call_tool'])
    const description = tools[0]!.description!
    expect(description).toContain('mcp__everything__echo')
    expect(description).toContain('mcp__filesystem__read_text_file')
  })

  it("relays each server's stderr under its name", () => {
    expect(stderr.some((line) => line.startsWith('[filesystem] '))).toBe(true)
    expect(stderr.every((line) => /^\[(everything|filesystem)\] .*\n$/.test(line))).toBe(true)
  })

  it("passes progress notifications through under the host's own token", async () => {
    await load('mcp__everything__trigger-long-running-operation')
    const progress: number[] = []
    const result = await host.client.callTool(
      { name: 'mcp__everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onprogress: (p) => void progress.push(p.progress) },
    )
    expect(texts(result).join('')).toContain('Long running operation completed')
    // The last step's notification races the result, and a client called directly drops it as well.
    expect(progress.slice(0, 2)).toEqual([1, 2])
  })

  it("keeps an upstream tool's title, annotations and outputSchema, and its structured result validates against it", async () => {
    const [structured] = await load('mcp__everything__get-structured-content')
    expect(structured).toMatchObject({
      title: 'Get Structured Content Tool',
      annotations: expect.objectContaining({ readOnlyHint: true }),
      outputSchema: { type: 'object', properties: expect.objectContaining({ temperature: expect.objectContaining({ type: 'number' }) }) },
    })
    // The client checks structuredContent against the listed outputSchema: a mismatch would throw.
    const result = await host.client.callTool({ name: 'mcp__everything__get-structured-content', arguments: { location: 'Chicago' } })
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) })
  })

  it('forwards a sampling request and an elicitation to the host that offers them, and returns what it answered', async () => {
    await load('mcp__everything__trigger-sampling-request', 'mcp__everything__trigger-elicitation-request')
    const sampled = await host.client.callTool({ name: 'mcp__everything__trigger-sampling-request', arguments: { prompt: 'a haiku' } })
    expect(JSON.stringify(sampled.content)).toContain('the host model says hi')
    expect(host.asked).toContainEqual(expect.stringMatching(/^sampling: .*a haiku/))
    const elicited = await host.client.callTool({ name: 'mcp__everything__trigger-elicitation-request', arguments: {} })
    expect(texts(elicited).join('\n')).toContain('- Name: Ada Lovelace')
    expect(host.asked).toContain('elicitation: Please provide inputs for the following fields:')
  })

  it('carries an image and an embedded resource through unchanged', async () => {
    await load('mcp__everything__get-tiny-image', 'mcp__everything__get-resource-reference')
    const image = await host.client.callTool({ name: 'mcp__everything__get-tiny-image', arguments: {} })
    expect(image.content).toContainEqual(expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) }))
    const resource = await host.client.callTool({ name: 'mcp__everything__get-resource-reference', arguments: { resourceId: 2 } })
    expect(resource.content).toContainEqual(
      expect.objectContaining({ type: 'resource', resource: expect.objectContaining({ uri: expect.stringContaining('2') }) }),
    )
  })

  it("answers server-everything's roots request with the host's roots", async () => {
    await load('mcp__everything__get-roots-list')
    const result = await host.client.callTool({ name: 'mcp__everything__get-roots-list', arguments: {} })
    expect(texts(result).join('')).toContain(`URI: file://${workspace}`)
    expect(host.asked).toContain('roots')
  })

  it('reads the workspace through server-filesystem, and nothing outside it', async () => {
    const [read] = await load('mcp__filesystem__read_text_file')
    expect(read).toMatchObject({ annotations: expect.objectContaining({ readOnlyHint: true }) })
    const result = await host.client.callTool({
      name: 'mcp__filesystem__read_text_file',
      arguments: { path: path.join(workspace, 'notes.txt') },
    })
    expect(texts(result).join('')).toContain('first line')
    const outside = await host.client.callTool({ name: 'mcp__filesystem__read_text_file', arguments: { path: '/etc/passwd' } })
    expect(outside.isError).toBe(true)
  })

  it('refuses, saying why, a sampling request while the host calling does not offer sampling', async () => {
    const bare = await connectHost(harness, gateway, {})
    try {
      await bare.client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__everything__trigger-sampling-request' } })
      const refused = await bare.client.callTool({ name: 'mcp__everything__trigger-sampling-request', arguments: { prompt: 'x' } })
      expect(refused.isError).toBe(true)
      expect(JSON.stringify(refused.content)).toContain('the MCP host connected to the dsh gateway does not offer sampling')
      expect(bare.asked).toEqual([])
    } finally {
      await bare.close()
    }
  })

  it('reaches a loaded tool through call_tool, as a host that keeps its first list does', async () => {
    await host.client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__everything__get-sum' } })
    const sum = await host.client.callTool({
      name: 'call_tool',
      arguments: { name: 'mcp__everything__get-sum', arguments: { a: 2, b: 40 } },
    })
    expect(texts(sum).join('')).toContain('42')
  })
})
