import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/client'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { describe, expect, it } from 'vitest'
import { serveMcpStdio } from '@dsh/mcp'
import { deferringHarness, silentLogger, testHarness, waitUntil } from './fixtures.js'

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
