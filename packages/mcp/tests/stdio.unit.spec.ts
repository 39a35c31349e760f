import { PassThrough } from 'node:stream'
import { Client, type JSONRPCMessage } from '@modelcontextprotocol/client'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { serveMcpStdio } from '@dsh/mcp'
import { countBufferWork, deferringHarness, preparingIndex, silentLogger, testHarness, waitUntil } from './fixtures.js'

/** Serves over in-memory pipes and connects the official client to the other ends. */
async function served(signal?: AbortSignal) {
  const test = await testHarness()
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const written: string[] = []
  stdout.on('data', (chunk: Buffer) => written.push(chunk.toString()))
  let resolved = false
  const serving = serveMcpStdio({
    harness: test.harness,
    fallbackCwd: '/fallback',
    session: 'mcp',
    name: 'dsh',
    version: '9.9.9',
    logger: silentLogger(),
    stdin,
    stdout,
    signal,
  })
  void serving.then(() => (resolved = true))
  // The server transport is a plain newline-delimited JSON-RPC transport over two streams: turned
  // around, it is the client's end of the same pipes.
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(new StdioServerTransport(stdout, stdin))
  return { ...test, client, stdin, written, serving, resolved: () => resolved }
}

describe('serveMcpStdio', () => {
  it('serves over the given streams, writing nothing but JSON-RPC, and resolves once stdin ends', async () => {
    const { client, stdin, written, serving } = await served()
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo')
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).isError).toBe(false)
    stdin.end()
    await serving
    const lines = written
      .join('')
      .split('\n')
      .filter((line) => line !== '')
    expect(lines.length).toBeGreaterThanOrEqual(3)
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' })
  })

  it('closes on abort, aborting the calls still running, and resolves only once they have settled', async () => {
    const controller = new AbortController()
    const { client, waits, serving, resolved } = await served(controller.signal)
    // Within the registry's settle grace after an abort, as a search whose rg was just killed is.
    void client.callTool({ name: 'wait', arguments: { lingerMs: 30 } }).catch(() => undefined)
    expect(await waitUntil(() => waits.length === 1, 5000)).toBe(true)
    controller.abort()
    expect(await waits[0]!.ended).toBe(true)
    expect(resolved()).toBe(false)
    await serving
    expect(waits[0]!.finished).toBe(true)
  })

  it('returns at once, touching neither stream, when the signal is already aborted', async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const { harness } = await testHarness()
    await serveMcpStdio({
      harness,
      fallbackCwd: '/',
      session: 'mcp',
      name: 'dsh',
      version: '1',
      logger: silentLogger(),
      stdin,
      stdout,
      signal: AbortSignal.abort(),
    })
    expect(stdin.listenerCount('data')).toBe(0)
    expect(stdout.readableLength).toBe(0)
  })
})

describe('serveMcpStdio, 2026-07-28 clients', () => {
  it('negotiates the modern revision through server/discover, and runs calls where _meta names, else in the fallback', async () => {
    const test = await testHarness()
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const serving = serveMcpStdio({
      harness: test.harness,
      fallbackCwd: '/fallback',
      session: 'mcp',
      name: 'dsh',
      version: '9',
      logger: silentLogger(),
      stdin,
      stdout,
    })
    const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new StdioServerTransport(stdout, stdin))
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo')
    const call = (meta: Record<string, unknown>) =>
      client.callTool({ name: 'echo', arguments: { text: 'hi' }, _meta: meta }).then((r) => (r.content as { text: string }[])[0]!.text)
    expect(await call({ 'dsh/cwd': '/named' })).toBe('hi (session mcp, cwd /named)')
    expect(await call({})).toBe('hi (session mcp, cwd /fallback)')
    stdin.end()
    await serving
  })

  it('serves a 2025 client that probed with server/discover first, logging the probe once', async () => {
    const logger = silentLogger()
    const { stdin, received, serving } = await probed({ harness: (await testHarness()).harness, logger })
    stdin.write('not json\n')
    stdin.write(
      request('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
    )
    expect(await waitUntil(() => received.some((m) => 'id' in m && m.id === 'init'), 10_000)).toBe(true)
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    stdin.write('still not json\n')
    stdin.write(request('call', 'tools/call', { name: 'echo', arguments: { text: 'hi' } }))
    expect(await waitUntil(() => received.some((m) => 'id' in m && m.id === 'call'), 10_000)).toBe(true)
    // No --cwd, no roots, no workspace, no fallback: the call says how to name one.
    expect(received.find((m) => 'id' in m && m.id === 'call')).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^no workspace to search/) },
    })
    expect(received.find((m) => 'id' in m && m.id === 'discover')).toMatchObject({
      result: { supportedVersions: expect.arrayContaining(['2026-07-28']) },
    })
    expect(logger.lines.filter((line) => line.includes('Parse error'))).toHaveLength(2)
    stdin.end()
    await serving
  })

  it("stops the discarded probe's preparing of the workspace when the SDK closes it, and prepares it again for the 2025 server", async () => {
    const { searchIndex, dirs, signals } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    const { stdin, serving } = await probed({ harness, cwd: '/chosen', logger: silentLogger() })
    // The probe is a 2026-07-28 server: it prepared its --cwd when built.
    expect(dirs).toEqual(['/chosen'])
    stdin.write(
      request('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
    )
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    expect(await waitUntil(() => dirs.length === 2, 10_000)).toBe(true)
    expect(dirs).toEqual(['/chosen', '/chosen'])
    // The probe closed while the session goes on: its prepare was stopped; the 2025 server's runs.
    expect(await waitUntil(() => signals[0]!.aborted, 10_000)).toBe(true)
    expect(signals[1]!.aborted).toBe(false)
    stdin.end()
    await serving
    expect(signals[1]!.aborted).toBe(true)
  })
})

describe('serveMcpStdio sessions', () => {
  it('forgets what a session loaded once its server closes, so many sessions over one harness leave nothing behind', async () => {
    const harness = await deferringHarness()
    for (let i = 0; i < 40; i++) {
      const stdin = new PassThrough()
      const stdout = new PassThrough()
      const session = `s${i}`
      const serving = serveMcpStdio({
        harness,
        fallbackCwd: '/',
        session,
        name: 'dsh',
        version: '9',
        logger: silentLogger(),
        stdin,
        stdout,
      })
      const client = new Client({ name: 'test-client', version: '1.0.0' })
      await client.connect(new StdioServerTransport(stdout, stdin))
      await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__add_note' } })
      expect(harness.registry.loadedDeferred(session)).toEqual(['mcp__notes__add_note'])
      stdin.end()
      await serving
      expect(harness.registry.sessionsWithLoads()).toEqual([])
    }
  })
})

/**
 * Serves over in-memory pipes spoken to in raw lines, as a broken client would; initialized, with the
 * roots capability when `roots` is set. `answer(id)` waits for the message the server sent with that id.
 */
async function rawServed(options: { mcp?: Record<string, unknown>; roots?: boolean } = {}) {
  const test = await testHarness(options.mcp === undefined ? {} : { mcp: options.mcp })
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const logger = silentLogger()
  const serving = serveMcpStdio({
    harness: test.harness,
    fallbackCwd: '/fallback',
    session: 'mcp',
    name: 'dsh',
    version: '9',
    logger,
    stdin,
    stdout,
  })
  const received: JSONRPCMessage[] = []
  let rest = ''
  stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n')
    rest = lines.pop()!
    for (const line of lines) received.push(JSON.parse(line) as JSONRPCMessage)
  })
  const write = (text: string | Buffer): Promise<void> => new Promise((resolve) => stdin.write(text, () => resolve()))
  const answer = async (id: unknown): Promise<JSONRPCMessage> => {
    const found = () => received.find((message) => 'id' in message && message.id === id)
    expect(await waitUntil(() => found() !== undefined, 10_000), `an answer with id ${JSON.stringify(id)}`).toBe(true)
    return found()!
  }
  const capabilities = options.roots === true ? { roots: { listChanged: true } } : {}
  await write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } } })}\n`,
  )
  await answer('init')
  await write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  const end = async () => {
    stdin.end()
    await serving
  }
  return { write, answer, received, logger, end }
}

/**
 * Serves over raw pipes, a client that sends `server/discover` first: resolves once it is answered,
 * with every message the server wrote so far and after.
 */
async function probed(options: Pick<Parameters<typeof serveMcpStdio>[0], 'harness' | 'cwd' | 'logger'>) {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const received: JSONRPCMessage[] = []
  stdout.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line !== '') received.push(JSON.parse(line) as JSONRPCMessage)
  })
  const serving = serveMcpStdio({ ...options, session: 'mcp', name: 'dsh', version: '9', stdin, stdout })
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  stdin.write(request('discover', 'server/discover', { _meta: envelope }))
  expect(await waitUntil(() => received.some((m) => 'id' in m && m.id === 'discover'), 10_000)).toBe(true)
  return { stdin, received, serving }
}

const request = (id: unknown, method: string, params: unknown = {}) => `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`
const errorAnswer = (id: unknown, code: number, message: RegExp) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message: expect.stringMatching(message) },
})

describe('serveMcpStdio given bad input', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('answers a line that is not JSON with a parse error (-32700, id null), and the next request as before', async () => {
    const served = await rawServed()
    await served.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"\n')
    await served.write(request(2, 'tools/list'))
    expect(await served.answer(2)).toMatchObject({ result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'echo' })]) } })
    expect(served.received).toContainEqual(errorAnswer(null, -32700, /^Parse error: .*; each line must hold one JSON-RPC message$/))
    expect(served.logger.lines).toContainEqual(expect.stringMatching(/^warn: mcp: refused a message from the client: Parse error: /))
    await served.end()
  })

  it('quotes a line that is not JSON in its parse error with its control and bidi characters escaped', async () => {
    const served = await rawServed()
    await served.write('\u001b]0;owned\u0007\u202e\n')
    await served.write(request(2, 'ping'))
    await served.answer(2)
    const [refusal] = served.received.filter((message) => 'error' in message)
    expect(refusal).toEqual(
      // V8 quotes the line it could not parse; the quote is escaped, whatever V8's wording around it.
      errorAnswer(null, -32700, /^Parse error: .*\\u001b\]0;owned\\u0007\\u202e.*; each line must hold/),
    )
    for (const hidden of ['\u001b', '\u0007', '\u202e']) expect(served.logger.lines.join('\n')).not.toContain(hidden)
    await served.end()
  })

  it('answers JSON that is no JSON-RPC message with Invalid Request (-32600), with the id of a request and null otherwise', async () => {
    const served = await rawServed()
    await served.write('{"jsonrpc":"2.0","id":7,"method":"ping","params":5}\n')
    expect(await served.answer(7)).toEqual(errorAnswer(7, -32600, /^Invalid Request: not a JSON-RPC 2\.0 message; a request needs /))
    for (const line of [
      '[{"jsonrpc":"2.0","id":8,"method":"ping"}]',
      '{"jsonrpc":"2.0","id":9}',
      '{"jsonrpc":"2.0","method":5}',
      '"ping"',
    ]) {
      await served.write(`${line}\n`)
    }
    await served.write(request(10, 'ping'))
    expect(await served.answer(10)).toEqual({ jsonrpc: '2.0', id: 10, result: {} })
    const refusals = served.received.filter((message) => 'error' in message && message.id === null)
    expect(refusals).toEqual([
      errorAnswer(null, -32600, /^Invalid Request: a batch \(a JSON array\) is not supported; send each message on its own line$/),
      errorAnswer(null, -32600, /^Invalid Request: not a JSON-RPC/),
      errorAnswer(null, -32600, /^Invalid Request: not a JSON-RPC/),
      errorAnswer(null, -32600, /^Invalid Request: not a JSON-RPC/),
    ])
    await served.end()
  })

  it('skips blank lines and reads a line that ends in CRLF', async () => {
    const served = await rawServed()
    await served.write(`\n  \r\n${request(3, 'ping').replace('\n', '\r\n')}`)
    expect(await served.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} })
    expect(served.received.filter((message) => 'error' in message)).toEqual([])
    await served.end()
  })

  it('refuses a message over mcp.messageMaxBytes with Invalid Request and the id it ends with, and reads on', async () => {
    const served = await rawServed({ mcp: { messageMaxBytes: 65_536 } })
    const big = `${JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(100_000) } }, jsonrpc: '2.0', id: 'big' })}\n`
    await served.write(big)
    await served.write(request(4, 'tools/call', { name: 'echo', arguments: { text: 'after' } }))
    expect(await served.answer('big')).toEqual(
      errorAnswer(
        'big',
        -32600,
        new RegExp(
          `^Invalid Request: the message is ${big.length - 1} bytes, over the limit of 65536 \\(mcp\\.messageMaxBytes\\); it was dropped unread$`,
        ),
      ),
    )
    expect(await served.answer(4)).toMatchObject({ result: { content: [{ type: 'text', text: 'after (session mcp, cwd /fallback)' }] } })
    await served.end()
  })

  it("fails the server's roots/list at once when the client's answer is over the limit, and calls run in the fallback cwd", async () => {
    const served = await rawServed({ mcp: { messageMaxBytes: 65_536 }, roots: true })
    const asked = await waitUntil(() => served.received.some((message) => 'method' in message && message.method === 'roots/list'), 10_000)
    expect(asked).toBe(true)
    const question = served.received.find((message) => 'method' in message && message.method === 'roots/list') as { id: number }
    const roots = [{ uri: 'file:///elsewhere', name: 'n'.repeat(70_000) }]
    await served.write(`${JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { roots } })}\n`)
    await served.write(request(5, 'tools/call', { name: 'echo', arguments: { text: 'where' } }))
    expect(await served.answer(5)).toMatchObject({ result: { content: [{ type: 'text', text: 'where (session mcp, cwd /fallback)' }] } })
    expect(served.logger.lines).toContainEqual(
      expect.stringMatching(
        /^warn: mcp: roots\/list failed \(Invalid Request: the message is \d+ bytes, over the limit of 65536 .*\); tools run in \/fallback$/,
      ),
    )
    // The client is not answered: what it sent was an answer.
    expect(served.received.filter((message) => 'error' in message)).toEqual([])
    await served.end()
  })

  it('answers a 3 MiB request arriving in 1 KiB chunks, searching each byte for a line feed once and copying it once', async () => {
    // No mcp plugin: the limit is MCP_MESSAGE_MAX_BYTES, 4 MiB.
    const served = await rawServed()
    const text = 't'.repeat(3 * 1024 * 1024)
    const message = Buffer.from(request(6, 'tools/call', { name: 'echo', arguments: { text } }))
    const work = countBufferWork(message)
    for (let start = 0; start < message.length; start += 1024) await served.write(message.subarray(start, start + 1024))
    expect(await served.answer(6)).toMatchObject({ result: { content: [{ type: 'text', text: `${text} (session mcp, cwd /fallback)` }] } })
    expect(work).toEqual({ searched: message.length, copied: message.length - 1 })
    await served.end()
  })
})
