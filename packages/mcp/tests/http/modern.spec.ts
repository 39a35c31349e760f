// 2026-07-28 clients over HTTP: the official client negotiating the modern revision against serveMcpHttp.
import { createHash } from 'node:crypto'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { parseListenAddress, serveMcpHttp } from '@dsh/mcp'
import type { Harness } from '@dsh/core'
import { deferringHarness, preparingIndex, silentLogger, testHarness, waitUntil } from '../fixtures.js'
import { postHeaders, rawRequest } from './raw-request.js'

const TOKEN = 'modern-token-0123456789'
const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()))
})

interface ServeOptions {
  cwd?: string
  fallbackCwd?: string
  toolChanges?: { onToolsChanged(listener: () => void): () => void }
}

async function serve(harness: Harness, options: ServeOptions = {}) {
  const controller = new AbortController()
  let listening!: (url: string) => void
  const url = new Promise<string>((resolve) => (listening = resolve))
  const parsed = parseListenAddress('127.0.0.1:0')
  if (!parsed.ok) throw new Error(parsed.problem)
  const logger = silentLogger()
  const stopped = serveMcpHttp({
    harness,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.fallbackCwd === undefined ? {} : { fallbackCwd: options.fallbackCwd }),
    ...(options.toolChanges === undefined ? {} : { toolChanges: options.toolChanges }),
    session: 'mcp',
    name: 'dsh',
    version: '9.9.9',
    logger,
    address: parsed.address,
    token: TOKEN,
    signal: controller.signal,
    onListening: listening,
  })
  stops.push(async () => {
    controller.abort()
    await stopped
  })
  return { url: await url, logger }
}

/** The official client, negotiating: it probes with server/discover and speaks 2026-07-28 when the server does. */
async function modernClient(url: string, meta: Record<string, unknown> = {}, onToolsChanged?: () => void) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } })
  const listChanged = onToolsChanged === undefined ? {} : { listChanged: { tools: { debounceMs: 0, onChanged: onToolsChanged } } }
  const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' }, ...listChanged })
  await client.connect(transport)
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args, _meta: meta })
  return { client, call }
}

const text = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text

describe('serveMcpHttp, 2026-07-28 clients', () => {
  it('negotiates the modern revision through server/discover, and lists and calls the tools', async () => {
    const test = await testHarness()
    const { url } = await serve(test.harness, { cwd: '/the/project' })
    const { client, call } = await modernClient(url)
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo')
    expect(text(await call('echo', { text: 'hi' }))).toMatch(/^hi \(session mcp-[0-9a-f]{12}, cwd \/the\/project\)$/)
  })

  it("runs a call in the request's dsh/cwd when the server has no --cwd, and never in its own cwd", async () => {
    const test = await testHarness()
    const { url } = await serve(test.harness)
    const { call } = await modernClient(url, { 'dsh/cwd': '/named/by/request' })
    expect(text(await call('echo', { text: 'hi' }))).toMatch(/cwd \/named\/by\/request\)$/)
    const unnamed = await modernClient(url)
    await expect(unnamed.call('echo', { text: 'hi' })).rejects.toThrow(
      /^no workspace to search: dsh mcp was started without --cwd, the config sets no mcp.workspace, and a 2026-07-28 request has no roots, and this one sent no _meta\["dsh\/cwd"\]; send _meta\["dsh\/cwd"\] with an absolute path, start dsh mcp with --cwd DIR, or set \{"mcp": \{"workspace": "\/abs\/dir"\}\} in its --config file$/,
    )
    const relative = await modernClient(url, { 'dsh/cwd': 'relative/dir' })
    await expect(relative.call('echo', { text: 'hi' })).rejects.toThrow(/no workspace to search/)
  })

  it('runs a request that names no workspace in mcp.workspace, else in the directory the host chose', async () => {
    const configured = await serve((await testHarness({ mcp: { workspace: '/configured' } })).harness)
    expect(text(await (await modernClient(configured.url)).call('echo', { text: 'hi' }))).toMatch(/cwd \/configured\)$/)
    const chosen = await serve((await testHarness()).harness, { fallbackCwd: '/host/chose' })
    const { call } = await modernClient(chosen.url)
    expect(text(await call('echo', { text: 'hi' }))).toMatch(/cwd \/host\/chose\)$/)
    expect(text(await (await modernClient(chosen.url, { 'dsh/cwd': '/request' })).call('echo', { text: 'r' }))).toMatch(/cwd \/request\)$/)
  })

  it('prepares the index of the workspace calls naming none run in, once for the process, and stops when it closes', async () => {
    const { searchIndex, dirs, signals } = preparingIndex()
    const { url } = await serve((await testHarness({ searchIndex })).harness, { fallbackCwd: '/the/project' })
    // Before any request: the server knows where calls will run.
    expect(dirs).toEqual(['/the/project'])
    const { call } = await modernClient(url)
    expect(text(await call('echo', { text: 'hi' }))).toMatch(/cwd \/the\/project\)$/)
    expect(text(await (await modernClient(url, { 'dsh/cwd': '/request' })).call('echo', { text: 'r' }))).toMatch(/cwd \/request\)$/)
    // One prepare for the process, not one per request's server.
    expect(dirs).toEqual(['/the/project'])
    expect(signals[0]!.aborted).toBe(false)
    await stops.pop()!()
    expect(signals[0]!.aborted).toBe(true)
    const none = (await testHarness({ searchIndex })).harness
    await serve(none)
    expect(dirs).toEqual(['/the/project'])
  })

  it('keeps what a named session loaded across its requests, and to itself', async () => {
    const harness = await deferringHarness()
    const { url } = await serve(harness, { cwd: '/p' })
    const named = await modernClient(url, { 'dsh/session': 'agent-1' })
    const loaded = await named.call('tool_search', { query: 'select:mcp__notes__add_note' })
    expect(text(loaded)).toMatch(/^Loaded 1 tool/)
    expect(text(await named.call('mcp__notes__add_note', { text: 'milk' }))).toBe('mcp__notes__add_note: milk')
    const other = await modernClient(url, { 'dsh/session': 'agent-2' })
    await expect(other.call('mcp__notes__add_note', { text: 'milk' })).resolves.toMatchObject({ isError: true })
    const anonymous = await modernClient(url)
    await anonymous.call('tool_search', { query: 'select:mcp__notes__add_note' })
    // A request that names no session is a session of its own: its load ends with it.
    await expect(anonymous.call('mcp__notes__add_note', { text: 'milk' })).resolves.toMatchObject({ isError: true })
  })

  it('tells a subscriptions/listen stream when a call loads tools', async () => {
    const harness = await deferringHarness()
    const { url } = await serve(harness, { cwd: '/p' })
    let changes = 0
    const listener = await modernClient(url, { 'dsh/session': 'listener' }, () => changes++)
    await listener.client.listTools()
    const loader = await modernClient(url, { 'dsh/session': 'loader' })
    await loader.call('tool_search', { query: 'select:mcp__notes__add_note' })
    expect(await waitUntil(() => changes > 0, 10_000)).toBe(true)
  })

  it("tells a subscriptions/listen stream when an upstream's tools change, and stops listening when it stops", async () => {
    const test = await testHarness()
    const listeners = new Set<() => void>()
    const toolChanges = {
      onToolsChanged: (listener: () => void) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
    }
    const { url } = await serve(test.harness, { cwd: '/p', toolChanges })
    let changes = 0
    const listener = await modernClient(url, {}, () => changes++)
    await listener.client.listTools()
    expect(listeners.size).toBe(1)
    for (const changed of listeners) changed()
    expect(await waitUntil(() => changes > 0, 10_000)).toBe(true)
    await stops.pop()!()
    expect(listeners.size).toBe(0)
  })

  it('forgets a named session idle for mcp.httpSessionIdleMs, with what it loaded', async () => {
    const harness = await deferringHarness({ mcp: { httpSessionIdleMs: 1_000 } })
    const { url } = await serve(harness, { cwd: '/p' })
    const named = await modernClient(url, { 'dsh/session': 'idle-agent' })
    await named.call('tool_search', { query: 'select:mcp__notes__add_note' })
    const owner = `mcp-${createHash('sha256').update('idle-agent').digest('hex').slice(0, 12)}`
    const loaded = () => harness.registry.listFor(owner).some((tool) => tool.name === 'mcp__notes__add_note')
    expect(loaded()).toBe(true)
    expect(await waitUntil(() => !loaded(), 20_000)).toBe(true)
  })

  it.each([
    ['a number', 7],
    ['an empty string', ''],
    ['129 characters', 'x'.repeat(129)],
  ])('refuses a dsh/session that is %s with Invalid params', async (_, session) => {
    const test = await testHarness()
    const { url } = await serve(test.harness, { cwd: '/p' })
    const { call } = await modernClient(url, { 'dsh/session': session })
    await expect(call('echo', { text: 'hi' })).rejects.toThrow(/_meta\["dsh\/session"\] must be a string of 1 to 128 characters/)
  })

  it('answers a notification naming a session past the bound with a null id', async () => {
    const test = await testHarness({ mcp: { httpMaxSessions: 1 } })
    const { url } = await serve(test.harness, { cwd: '/p' })
    await (await modernClient(url, { 'dsh/session': 'one' })).call('echo', { text: 'a' })
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'dsh/session': 'two' } },
    })
    const answered = await rawRequest(url, { headers: postHeaders(TOKEN, { 'MCP-Protocol-Version': '2026-07-28' }), body: [body] })
    expect(JSON.parse(answered.body)).toMatchObject({ id: null, error: { message: expect.stringMatching(/^Service Unavailable/) } })
  })

  it.each([
    ['no params', { jsonrpc: '2.0', id: 4, method: 'tools/list' }],
    ['params without _meta', { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} }],
    ['a _meta that is no object', { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: 'x' } }],
    ['a body of null', null],
  ])("answers a request claiming 2026-07-28 by header only, with %s, with the SDK's refusal", async (_, body) => {
    const test = await testHarness()
    const { url } = await serve(test.harness, { cwd: '/p' })
    const headers = postHeaders(TOKEN, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' })
    const answered = await rawRequest(url, { headers, body: [JSON.stringify(body)] })
    expect(answered.status).toBeGreaterThanOrEqual(200)
    expect(JSON.parse(answered.body)).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } })
  })

  it('gives its lists a ttlMs of 0: a listing changes as tools load', async () => {
    const test = await testHarness()
    const { url } = await serve(test.harness, { cwd: '/p' })
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    })
    const answered = await rawRequest(url, {
      headers: postHeaders(TOKEN, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' }),
      body: [body],
    })
    expect(answered.status).toBe(200)
    expect(JSON.parse(answered.body)).toMatchObject({ id: 3, result: { ttlMs: 0, tools: expect.any(Array) } })
  })

  it('refuses a new named session past mcp.httpMaxSessions', async () => {
    const test = await testHarness({ mcp: { httpMaxSessions: 1 } })
    const { url } = await serve(test.harness, { cwd: '/p' })
    const first = await modernClient(url, { 'dsh/session': 'one' })
    await first.call('echo', { text: 'a' })
    const second = await modernClient(url, { 'dsh/session': 'two' })
    await expect(second.call('echo', { text: 'b' })).rejects.toThrow(
      /Service Unavailable: 1 sessions are named, the most this server holds/,
    )
    expect(text(await first.call('echo', { text: 'again' }))).toMatch(/^again/)
  })

  it("answers a raw modern request that names a revision it does not serve with the SDK's error", async () => {
    const test = await testHarness()
    const { url } = await serve(test.harness, { cwd: '/p' })
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    })
    const answered = await rawRequest(url, { headers: postHeaders(TOKEN, { 'MCP-Protocol-Version': '2099-01-01' }), body: [body] })
    expect(answered.body).toMatch(/2026-07-28/)
  })
})
