// serveMcpHttp in process: the official client over real loopback HTTP, and raw requests a client would never send.
import { request } from 'node:http'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { parseListenAddress, serveMcpHttp, type ServeMcpHttpOptions } from '@dsh/mcp'
import type { Harness } from '@dsh/core'
import { budgetMs } from '../../../../test-support/budget.js'
import { deferringHarness, preparingIndex, serverOptions, silentLogger, testHarness, waitUntil, type TestHarness } from '../fixtures.js'
import { errorOf, INITIALIZE, postHeaders, rawRequest } from './raw-request.js'

const TOKEN = 'test-token-0123456789'

interface Serving {
  url: string
  test: TestHarness
  logger: ReturnType<typeof silentLogger>
  stop(): Promise<void>
  stopped: Promise<void>
}

const servers: Serving[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})

/** Serves the test harness on 127.0.0.1 with a free port, and returns the URL once it listens. */
async function serve(options: Partial<ServeMcpHttpOptions> & { mcp?: Record<string, unknown> } = {}): Promise<Serving> {
  const { mcp, ...rest } = options
  const test = await testHarness(mcp === undefined ? {} : { mcp })
  const logger = silentLogger()
  const controller = new AbortController()
  let listening!: (url: string) => void
  const listened = new Promise<string>((resolve) => (listening = resolve))
  const stopped = serveMcpHttp(serveOptions(test.harness, { logger, signal: controller.signal, onListening: listening, ...rest }))
  const url = await Promise.race([listened, stopped.then(() => Promise.reject(new Error('stopped before listening')))])
  const serving = {
    url,
    test,
    logger,
    stopped,
    stop: async () => {
      controller.abort()
      await stopped
    },
  }
  servers.push(serving)
  return serving
}

/**
 * The options every test serves with: the test server's (fixtures.ts) on 127.0.0.1, a free port, with
 * the token, a signal nobody aborts, and a listener that fails the test; `overrides` replace any.
 */
function serveOptions(harness: Harness, overrides: Partial<ServeMcpHttpOptions> = {}): ServeMcpHttpOptions {
  return {
    ...serverOptions(harness),
    address: address('127.0.0.1:0'),
    token: TOKEN,
    signal: new AbortController().signal,
    onListening: () => expect.fail('it must not listen'),
    ...overrides,
  }
}

function address(text: string) {
  const parsed = parseListenAddress(text)
  if (!parsed.ok) throw new Error(parsed.problem)
  return parsed.address
}

/** The official client, connected with the token, another token, or none (null). */
async function client(url: string, token: string | null = TOKEN): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  })
  const connected = new Client({ name: 'test-client', version: '1.0.0' })
  await connected.connect(transport)
  return connected
}

describe('serveMcpHttp', () => {
  it('serves the tools to the official client with the token, each session its own', async () => {
    const { url } = await serve()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const first = await client(url)
    const second = await client(url)
    expect((await first.listTools()).tools.map((t) => t.name)).toContain('echo')
    const echoed = (c: Client) =>
      c.callTool({ name: 'echo', arguments: { text: 'hi' } }).then((r) => (r.content as { text: string }[])[0]!.text)
    const [a, b] = [await echoed(first), await echoed(second)]
    expect(a).toMatch(/^hi \(session mcp-[0-9a-f]{12}, cwd \/fallback\)$/)
    expect(b).toMatch(/^hi \(session mcp-[0-9a-f]{12}, cwd \/fallback\)$/)
    expect(a).not.toBe(b)
    await first.close()
    await second.close()
  })

  it("fails a call that names no workspace, never running it in the server's own cwd, unless mcp.workspace or roots name one", async () => {
    const { url } = await serve({ fallbackCwd: undefined })
    const bare = await client(url)
    await expect(bare.callTool({ name: 'echo', arguments: { text: 'hi' } })).rejects.toThrow(
      /^no workspace to search: dsh mcp was started without --cwd, the config sets no mcp\.workspace, and the client named no file:\/\/ root \(MCP roots\); use a client that sends roots, start dsh mcp with --cwd DIR, or set \{"mcp": \{"workspace": "\/abs\/dir"\}\} in its --config file$/,
    )
    const rooted = new Client({ name: 'rooted', version: '1' }, { capabilities: { roots: {} } })
    rooted.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///the/root', name: 'root' }] }))
    await rooted.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    )
    const echoed = await rooted.callTool({ name: 'echo', arguments: { text: 'hi' } })
    expect((echoed.content as { text: string }[])[0]!.text).toMatch(/cwd \/the\/root\)$/)
    const configured = await serve({ fallbackCwd: undefined, mcp: { workspace: '/configured' } })
    const plain = await client(configured.url)
    const answer = await plain.callTool({ name: 'echo', arguments: { text: 'hi' } })
    expect((answer.content as { text: string }[])[0]!.text).toMatch(/cwd \/configured\)$/)
    await Promise.all([bare.close(), rooted.close(), plain.close()])
  })

  it('refuses a request without the token with 401 and a Bearer challenge, and the official client cannot connect', async () => {
    const { url } = await serve()
    const { Authorization: _, ...headers } = postHeaders(TOKEN)
    const refused = await rawRequest(url, { headers, body: [INITIALIZE] })
    expect(refused.status).toBe(401)
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="dsh"')
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { message: 'Unauthorized: send Authorization: Bearer TOKEN' },
    })
    await expect(client(url, null)).rejects.toThrow(/Unauthorized: send Authorization: Bearer TOKEN/)
  })

  it.each([
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token in another scheme', `Basic ${TOKEN}`],
  ])('refuses %s with 401', async (_, authorization) => {
    const { url } = await serve()
    const refused = await rawRequest(url, { headers: postHeaders(TOKEN, { Authorization: authorization }), body: [INITIALIZE] })
    expect(refused.status).toBe(401)
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm="dsh"/)
  })

  it('takes the scheme in any case, as RFC 7235 says', async () => {
    const { url } = await serve()
    const taken = await rawRequest(url, { headers: postHeaders(TOKEN, { Authorization: `bEaReR ${TOKEN}` }), body: [INITIALIZE] })
    expect(taken.status).toBe(200)
  })

  it.each([
    ['a rebound DNS name as Host', { Host: 'attacker.example:8080' }],
    ['a Host that hides another', { Host: 'localhost@attacker.example' }],
    ["another site's Origin", { Origin: 'http://attacker.example' }],
    ['the opaque null Origin', { Origin: 'null' }],
  ])('refuses %s with 403, even with the token', async (_, extra) => {
    const { url, logger } = await serve()
    const refused = await rawRequest(url, { headers: postHeaders(TOKEN, extra), body: [INITIALIZE] })
    expect(refused.status).toBe(403)
    expect(errorOf(refused).message).toMatch(/^Forbidden: (Host|Origin) /)
    expect(logger.lines).toEqual([])
  })

  it.each([['localhost'], ['127.0.0.1'], ['[::1]']])('takes %s as Host and as Origin on a loopback address', async (name) => {
    const { url } = await serve()
    const port = new URL(url).port
    const taken = await rawRequest(url, {
      headers: postHeaders(TOKEN, { Host: `${name}:${port}`, Origin: `http://${name}:5173` }),
      body: [INITIALIZE],
    })
    expect(taken.status).toBe(200)
  })

  it('refuses a body over mcp.messageMaxBytes with 413, declared or sent without a length', async () => {
    const { url } = await serve({ mcp: { messageMaxBytes: 65_536 } })
    const big = Buffer.alloc(65_537, 0x20)
    const declared = await rawRequest(url, { headers: postHeaders(TOKEN, { 'Content-Length': String(big.length) }), body: [big] })
    expect(declared.status).toBe(413)
    expect(errorOf(declared).message).toBe('a request body is at most 65536 bytes')
    const chunked = await rawRequest(url, { headers: postHeaders(TOKEN), body: Array.from({ length: 17 }, () => Buffer.alloc(4096, 0x20)) })
    expect(chunked.status).toBe(413)
    // The limit is the body's, not more: one byte less is read and parsed (and is no JSON).
    const fits = await rawRequest(url, { headers: postHeaders(TOKEN), body: [big.subarray(1)] })
    expect(fits.status).toBe(400)
  })

  it.each([
    ['JSON that does not parse', '{"jsonrpc": "2.0", "id": 1,'],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ])('answers %s with a parse error (-32700), and the session goes on', async (_, body) => {
    const { url } = await serve()
    const connected = await client(url)
    const refused = await rawRequest(url, { headers: postHeaders(TOKEN), body: [body] })
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not JSON in UTF-8' },
    })
    expect((await connected.listTools()).tools.length).toBeGreaterThan(0)
    await connected.close()
  })

  it.each([
    ['another path', '/other', 'POST', 404, /^Not Found: the MCP endpoint is \/mcp$/],
    ['PUT', '/mcp', 'PUT', 405, /^Method not allowed\.$/],
    ['a request without a session that is no initialize', '/mcp', 'POST', 400, /Mcp-Session-Id header is required; initialize first$/],
    ['an event stream asked for without a session', '/mcp', 'GET', 400, /Mcp-Session-Id header is required; initialize first$/],
  ])('answers %s (%s, %s) with %i', async (_, path, method, status, message) => {
    const { url } = await serve()
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const answered = await rawRequest(new URL(path, url).href, {
      method,
      headers: postHeaders(TOKEN),
      body: method === 'GET' ? [] : [body],
    })
    expect(answered.status).toBe(status)
    expect(errorOf(answered).message).toMatch(message)
    if (status === 405) expect(answered.headers.allow).toBe('GET, POST, DELETE')
  })

  it('answers an unknown session id with 404 (-32001), on which a client initializes again', async () => {
    const { url } = await serve()
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const answered = await rawRequest(url, { headers: postHeaders(TOKEN, { 'Mcp-Session-Id': 'no-such-session' }), body: [body] })
    expect(answered.status).toBe(404)
    expect(errorOf(answered)).toMatchObject({ code: -32001, message: expect.stringMatching(/^Session not found/) })
  })

  it('answers a client that stalls mid-request with 408 once mcp.httpRequestTimeoutMs has passed', async () => {
    const { url } = await serve({ mcp: { httpRequestTimeoutMs: 200 } })
    const started = Date.now()
    const stalled = await rawRequest(url, { headers: postHeaders(TOKEN, { 'Content-Length': '1000' }), body: ['{"jsonrpc"'], stall: true })
    expect(stalled.status).toBe(408)
    expect(Date.now() - started).toBeGreaterThanOrEqual(200)
  })

  it('refuses to serve an address other machines can reach without a token', async () => {
    const test = await testHarness()
    const serving = serveMcpHttp(serveOptions(test.harness, { address: address('0.0.0.0:0'), token: undefined }))
    await expect(serving).rejects.toThrow('serving MCP on 0.0.0.0, which other machines can reach, needs a bearer token')
  })

  it('serves a loopback address without a token when none is given', async () => {
    const { url } = await serve({ token: undefined })
    const connected = await client(url, null)
    expect((await connected.listTools()).tools.length).toBeGreaterThan(0)
    await connected.close()
  })

  it('returns at once, never listening, when the signal is already aborted', async () => {
    const test = await testHarness()
    await serveMcpHttp(serveOptions(test.harness, { signal: AbortSignal.abort() }))
  })

  it('resolves, neither serving nor preparing, when the signal aborts while the port is being bound', async () => {
    const { searchIndex, dirs } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    const controller = new AbortController()
    let resolved = false
    void serveMcpHttp(
      serveOptions(harness, { signal: controller.signal, onListening: () => expect.fail('it must not announce a server it stopped') }),
    ).then(() => (resolved = true))
    // Listening completes in a later turn of the event loop: this abort comes while it is pending.
    controller.abort()
    expect(await waitUntil(() => resolved, budgetMs(10_000))).toBe(true)
    expect(dirs).toEqual([])
  })

  it('rejects when the port is taken, having prepared no workspace', async () => {
    const { url } = await serve()
    const { searchIndex, dirs } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    await expect(serve({ harness, address: address(`127.0.0.1:${new URL(url).port}`) })).rejects.toThrow(/EADDRINUSE/)
    expect(dirs).toEqual([])
  })

  it('on abort, cancels the calls still running and resolves only once they have settled', async () => {
    const serving = await serve()
    const connected = await client(serving.url)
    // Within the registry's settle grace after an abort, as a search whose rg was just killed is.
    const call = connected.callTool({ name: 'wait', arguments: { lingerMs: 30 } })
    void call.catch(() => undefined)
    expect(await waitUntil(() => serving.test.waits.length === 1, 10_000)).toBe(true)
    await serving.stop()
    const [wait] = serving.test.waits
    expect(wait!.signal.aborted).toBe(true)
    expect(wait!.finished).toBe(true)
  })
})

describe('serveMcpHttp with clients that go away', () => {
  it('logs a client that disconnects mid-body, and serves on', async () => {
    const { url, logger } = await serve()
    // Expect: 100-continue makes the server say when it has the headers and is reading the body.
    const req = request(url, {
      method: 'POST',
      headers: postHeaders(TOKEN, { 'Content-Length': '1000', Expect: '100-continue' }),
      agent: false,
    })
    req.on('error', () => undefined)
    await new Promise<void>((resolve) => req.on('continue', resolve))
    req.write('{"jsonrpc": "2.0",')
    req.destroy()
    expect(await waitUntil(() => logger.lines.some((line) => /^warn: mcp: POST \/mcp: aborted$/.test(line)), 10_000)).toBe(true)
    const connected = await client(url)
    expect((await connected.listTools()).tools.length).toBeGreaterThan(0)
    await connected.close()
  })

  it("ends the session's event stream when its client goes away, and the session idles out after", async () => {
    const { url } = await serve({ mcp: { httpSessionIdleMs: 1_000 } })
    const opened = await rawRequest(url, { headers: postHeaders(TOKEN), body: [INITIALIZE] })
    const id = opened.headers['mcp-session-id'] as string
    const headers = { ...postHeaders(TOKEN, { 'Mcp-Session-Id': id }), Accept: 'text/event-stream' }
    const stream = request(url, { method: 'GET', headers, agent: false })
    stream.on('error', () => undefined)
    stream.end()
    const response = await new Promise<import('node:http').IncomingMessage>((resolve) => stream.on('response', resolve))
    expect(response.headers['content-type']).toBe('text/event-stream')
    stream.destroy()
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const ask = () => rawRequest(url, { headers: postHeaders(TOKEN, { 'Mcp-Session-Id': id }), body: [list] })
    // While the stream was open the session was busy; once it is gone the session idles out.
    let status = 200
    const deadline = Date.now() + 20_000
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      status = (await ask()).status
    }
    expect(status).toBe(404)
  })
})

describe('serveMcpHttp sessions', () => {
  it("stops preparing a session's workspace when the session closes, before its calls have settled", async () => {
    // What the running call had done when the prepare was told to stop: the session's release comes only after its calls.
    let finishedAtAbort: boolean | undefined
    const test = await testHarness({
      searchIndex: {
        plan: () => Promise.resolve({ kind: 'full-scan', reason: 'no-index', detail: 'none here' }),
        prepare: ({ signal }) =>
          new Promise<void>((resolve) =>
            signal.addEventListener('abort', () => {
              finishedAtAbort = test.waits[0]?.finished
              resolve()
            }),
          ),
      },
    })
    const { url } = await serve({ harness: test.harness, cwd: '/chosen' })
    const connected = await client(url)
    void connected.callTool({ name: 'wait', arguments: {} }).catch(() => undefined)
    expect(await waitUntil(() => test.waits.length === 1, 10_000)).toBe(true)
    await (connected.transport as StreamableHTTPClientTransport).terminateSession()
    expect(await waitUntil(() => finishedAtAbort !== undefined, 10_000)).toBe(true)
    expect(finishedAtAbort).toBe(false)
    expect(await waitUntil(() => test.waits[0]!.finished, 10_000)).toBe(true)
  })

  it('keeps what each session loaded to itself, and forgets it when the client ends the session', async () => {
    const harness = await deferringHarness()
    const { url } = await serve({ harness })
    const loader = await client(url)
    const other = await client(url)
    await loader.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__add_note' } })
    expect((await loader.listTools()).tools.map((t) => t.name)).toContain('mcp__notes__add_note')
    expect((await other.listTools()).tools.map((t) => t.name)).not.toContain('mcp__notes__add_note')
    // echo names the session a call ran in: the registry session, and the spill owner.
    const echoed = await loader.callTool({ name: 'echo', arguments: { text: 'who' } })
    const owner = /session (\S+),/.exec((echoed.content as { text: string }[])[0]!.text)![1]!
    const loaded = () => harness.registry.listFor(owner).some((t) => t.name === 'mcp__notes__add_note')
    expect(loaded()).toBe(true)
    await (loader.transport as StreamableHTTPClientTransport).terminateSession()
    expect(await waitUntil(() => !loaded(), 10_000)).toBe(true)
    expect((await other.listTools()).tools.map((t) => t.name)).toContain('echo')
    await other.close()
  })

  it('refuses an initialize past mcp.httpMaxSessions with 503, and takes one once a session ends', async () => {
    const { url } = await serve({ mcp: { httpMaxSessions: 2 } })
    const first = await client(url)
    await client(url)
    const refused = await rawRequest(url, { headers: postHeaders(TOKEN), body: [INITIALIZE] })
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('60')
    expect(errorOf(refused).message).toMatch(/^Service Unavailable: 2 sessions are open/)
    await (first.transport as StreamableHTTPClientTransport).terminateSession()
    expect((await rawRequest(url, { headers: postHeaders(TOKEN), body: [INITIALIZE] })).status).toBe(200)
  })

  it('keeps no session for an initialize the transport refuses (a client that cannot read event streams)', async () => {
    const { url } = await serve({ mcp: { httpMaxSessions: 1 } })
    const refused = await rawRequest(url, { headers: postHeaders(TOKEN, { Accept: 'application/json' }), body: [INITIALIZE] })
    expect(refused.status).toBe(406)
    expect(refused.headers['mcp-session-id']).toBeUndefined()
    expect((await rawRequest(url, { headers: postHeaders(TOKEN), body: [INITIALIZE] })).status).toBe(200)
  })

  it('ends a session idle for mcp.httpSessionIdleMs, whose id is then answered 404', async () => {
    const { url } = await serve({ mcp: { httpSessionIdleMs: 1_000 } })
    const opened = await rawRequest(url, { headers: postHeaders(TOKEN), body: [INITIALIZE] })
    const id = opened.headers['mcp-session-id'] as string
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const ask = () =>
      rawRequest(url, { headers: postHeaders(TOKEN, { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-06-18' }), body: [list] })
    expect((await ask()).status).toBe(200)
    let status = 200
    const deadline = Date.now() + 20_000
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      status = (await ask()).status
    }
    expect(status).toBe(404)
  })
})
