// `dsh mcp --http` as a host runs it: the built command, spawned, reached over loopback by the official client.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { processesMentioning, tempDir, waitUntil, writeTree } from './io.js'

const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const bundle = join(repo, 'packages', 'cli', 'dist', 'dsh.mjs')

const TOKEN = 'e2e-token-0123456789abcdef0123456789'
const tree = tempDir('mcp-http-tree')
const files = tempDir('mcp-http-files')
const spill = tempDir('mcp-http-spill')
const tokenFile = join(files, 'token')
afterAll(() => {
  for (const dir of [tree, files, spill]) rmSync(dir, { recursive: true, force: true })
})

interface Served {
  child: ChildProcess
  url: string
  stderr(): string
  exited: Promise<number | null>
}

const started: Served[] = []
afterEach(() => {
  for (const { child } of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

/** Spawns `dsh mcp --http ARGS` and resolves once it printed where it serves. */
async function dshHttp(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd: readonly string[] = ['--cwd', tree],
): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'mcp', '--spill-dir', spill, ...cwd, ...args], {
    cwd: files,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /^dsh: serving MCP at (\S+)$/m.exec(stderr)
      if (match !== null) resolve(match[1]!)
    })
    void exited.then((code) => reject(new Error(`dsh exited ${code} before serving: ${stderr}`)))
  })
  const served = { child, url: await url, stderr: () => stderr, exited }
  started.push(served)
  return served
}

/** The official client; `modern` negotiates (server/discover) and speaks 2026-07-28 when the server does. */
async function connect(url: string, token: string | null, modern = false): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === null ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
  )
  const client = new Client({ name: 'e2e', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {})
  await client.connect(transport)
  return client
}

const text = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text

/** One raw request, as a broken or hostile client sends it. */
function raw(url: string, headers: Record<string, string>, body: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let data = ''
      res.on('data', (chunk: Buffer) => (data += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, body: data }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})
const headers = (extra: Record<string, string> = {}) => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  Authorization: `Bearer ${TOKEN}`,
  ...extra,
})

/** How long this machine takes to start `dsh mcp --http` until it listens: what the deadlines below scale with. */
let startupMs = 0
beforeAll(async () => {
  expect(existsSync(bundle), `${bundle} is missing: run \`npm run build\` before this test`).toBe(true)
  writeTree(tree, { 'a.txt': 'needle one\nneedle two\n', 'b.txt': 'haystack\n' })
  writeFileSync(tokenFile, `${TOKEN}\n`)
  const before = Date.now()
  const served = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
  startupMs = Date.now() - before
  served.child.kill('SIGTERM')
  await served.exited
})

describe('dsh mcp --http, the built command', () => {
  it('prints its URL, and serves grep to the official client with the token', async () => {
    const { url, stderr } = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
    expect(stderr()).toBe(`dsh: serving MCP at ${url}\n`)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const client = await connect(url, TOKEN)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['grep', 'glob']))
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    expect(text(result)).toContain('a.txt')
    expect(text(result)).not.toContain('b.txt')
    expect(result.structuredContent).toMatchObject({ card: 'search', shape: 'matches', total: 2 })
    await client.close()
  })

  it('serves a 2026-07-28 client from the same endpoint, with the token', async () => {
    const { url } = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
    const client = await connect(url, TOKEN, true)
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['grep', 'glob']))
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'needle' }, _meta: { 'dsh/session': 'agent' } })
    expect(text(result)).toContain('a.txt')
    await expect(connect(url, null, true)).rejects.toThrow(/requires authorization \(HTTP 401\)/)
  })

  it('without --cwd, fails a call that names no workspace, never searching its own cwd, and serves one that does', async () => {
    const { url } = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile], {}, [])
    const legacy = await connect(url, TOKEN)
    await expect(legacy.callTool({ name: 'grep', arguments: { pattern: 'token' } })).rejects.toThrow(
      /no workspace to search: dsh mcp was started without --cwd, the config sets no mcp\.workspace, and the client named no file:\/\/ root/,
    )
    const modern = await connect(url, TOKEN, true)
    await expect(modern.callTool({ name: 'grep', arguments: { pattern: 'token' } })).rejects.toThrow(/send _meta\["dsh\/cwd"\]/)
    const named = await modern.callTool({ name: 'grep', arguments: { pattern: 'needle' }, _meta: { 'dsh/cwd': tree } })
    expect(text(named)).toContain('a.txt')
    await legacy.close()
  })

  it("serves a link another process's session returned, over the same store", async () => {
    const config = join(files, 'capped.json')
    writeFileSync(config, JSON.stringify({ 'tool-fs-search': { grepMaxMatches: 1 } }))
    const maker = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile, '--config', config])
    const client = await connect(maker.url, TOKEN)
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    const link = (result.content as { type: string; uri?: string }[]).find((block) => block.type === 'resource_link')!
    await client.close()
    const reader = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
    const other = await connect(reader.url, TOKEN, true)
    const { contents } = await other.readResource({ uri: link.uri! })
    expect(contents).toEqual([{ uri: link.uri, mimeType: 'text/plain', text: expect.stringMatching(/needle one[^]*needle two/) }])
  })

  it('serves on [::1] too, with the token from DSH_MCP_TOKEN', async () => {
    const { url } = await dshHttp(['--http', '[::1]:0'], { DSH_MCP_TOKEN: TOKEN })
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/)
    const client = await connect(url, TOKEN)
    expect(text(await client.callTool({ name: 'glob', arguments: { pattern: '*.txt' } }))).toContain('b.txt')
    await client.close()
  })

  it('refuses the official client without the token, and with a wrong one', async () => {
    const { url } = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
    await expect(connect(url, null)).rejects.toThrow(/Unauthorized: send Authorization: Bearer TOKEN/)
    await expect(connect(url, `${TOKEN}0`)).rejects.toThrow(/Unauthorized: the bearer token is wrong/)
  })

  it.each([
    ['no token', headers({ Authorization: '' }), INITIALIZE, 401],
    ['a wrong token', headers({ Authorization: 'Bearer wrong-token-0123456789' }), INITIALIZE, 401],
    ['a rebound Host', headers({ Host: 'attacker.example' }), INITIALIZE, 403],
    ["another site's Origin", headers({ Origin: 'https://attacker.example' }), INITIALIZE, 403],
    ['an oversized body', headers(), Buffer.alloc(4 * 1024 * 1024 + 1, 0x20), 413],
    ['malformed JSON', headers(), '{"jsonrpc": "2.0", "method": ', 400],
  ])('answers a request with %s with %i, and keeps serving', async (_, sent, body, status) => {
    const { url } = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
    expect((await raw(url, sent, body)).status).toBe(status)
    const client = await connect(url, TOKEN)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await client.close()
  })

  it('refuses a non-loopback address without a token before binding it, exit 2', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', '--http', '0.0.0.0:0'], { cwd: files, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(stderr).toMatch(/^dsh: --http 0\.0\.0\.0:0: other machines can reach 0\.0\.0\.0, so requests need a bearer token/)
  })

  it('exits on SIGTERM during a search, leaving no rg behind', async () => {
    const served = await dshHttp(['--http', '127.0.0.1:0', '--token-file', tokenFile])
    const client = await connect(served.url, TOKEN)
    // rg blocks opening a FIFO that nothing writes: a search that would never end on its own.
    const fifo = join(tree, `fifo-${process.pid}-${Date.now()}`)
    execFileSync('mkfifo', [fifo])
    void client.callTool({ name: 'grep', arguments: { pattern: 'needle', path: fifo } }).catch(() => undefined)
    expect(await waitUntil(() => processesMentioning(fifo).length > 0, 20_000)).toBe(true)
    const stopped = Date.now()
    served.child.kill('SIGTERM')
    expect(await served.exited).toBe(0)
    // Stopping kills rg's process group at once; it may take as long as starting did, on a loaded machine.
    const bound = Math.max(1_000, 2 * startupMs)
    expect(Date.now() - stopped).toBeLessThan(bound)
    expect(processesMentioning(fifo)).toEqual([])
    rmSync(fifo)
  })
})
