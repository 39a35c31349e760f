// `dsh mcp` as an MCP host runs it: the built command, spawned by the official client over stdio.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client, type ResourceLink, type Root } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { writeBlockingRg } from '../../../test-support/blocking-rg.js'
import { processesMentioning, tempDir, waitUntil, writeTree } from './io.js'

const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const bundle = join(repo, 'packages', 'cli', 'dist', 'dsh.mjs')

const tree = tempDir('mcp-tree')
const elsewhere = tempDir('mcp-elsewhere')
const spill = tempDir('mcp-spill')
const configs = tempDir('mcp-configs')
afterAll(() => {
  for (const dir of [tree, elsewhere, spill, configs]) rmSync(dir, { recursive: true, force: true })
})

/** The tools `dsh tools` lists with the same build: `read` only once the tool-fs package is wired in. */
let registered: string[] = []
beforeAll(() => {
  writeTree(tree, { 'a.txt': Array.from({ length: 5 }, (_, i) => `needle ${i + 1}\n`).join('') })
  writeTree(elsewhere, { 'elsewhere.txt': 'needle elsewhere\n' })
  expect(existsSync(bundle), `${bundle} is missing: run \`npm run build\` before this test`).toBe(true)
  const listing = execFileSync(process.execPath, [bin, 'tools', '--format', 'json'], { cwd: tree, encoding: 'utf8' })
  registered = (JSON.parse(listing) as ToolListing[]).map((tool) => tool.name)
})

/** Writes a config file and returns its path. */
function configFile(name: string, config: object): string {
  const file = join(configs, name)
  writeFileSync(file, JSON.stringify(config))
  return file
}

interface Running {
  client: Client
  transport: StdioClientTransport
  stderr(): string
  /** Client-side errors, a line on stdout that is not JSON-RPC among them. */
  errors: Error[]
  closed: Promise<void>
}

const running: Running[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.client.close()))
})

/** Spawns `dsh mcp ARGS` and connects; with `roots`, the client declares the capability and answers roots/list. */
async function dshMcp(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; roots?: Root[] } = {},
): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--spill-dir', spill, ...args],
    cwd: options.cwd ?? tree,
    stderr: 'pipe',
    ...(options.env === undefined ? {} : { env: options.env }),
  })
  let stderr = ''
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const roots = options.roots
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } },
  )
  if (roots !== undefined) client.setRequestHandler('roots/list', () => ({ roots }))
  const errors: Error[] = []
  client.onerror = (error) => errors.push(error)
  const closed = new Promise<void>((resolve) => (client.onclose = resolve))
  await client.connect(transport)
  const started = { client, transport, stderr: () => stderr, errors, closed }
  running.push(started)
  return started
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { text: string }[])[0]!.text
}

/** Starts a grep that blocks on a FIFO (rg waits to open it) and resolves once rg is running. */
async function blockedGrep(server: Running, name: string, signal?: AbortSignal) {
  const fifo = join(tree, name)
  execFileSync('mkfifo', [fifo])
  const call = server.client.callTool(
    { name: 'grep', arguments: { pattern: 'needle', path: fifo } },
    signal === undefined ? {} : { signal },
  )
  call.catch(() => undefined)
  expect(await waitUntil(() => processesMentioning(fifo).length > 0, 20_000)).toBe(true)
  return { fifo, call }
}

describe('dsh mcp', () => {
  it('lists the registered tools with their schemas', async () => {
    const { client, errors } = await dshMcp([])
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(registered)
    expect(registered).toEqual(expect.arrayContaining(['grep', 'glob']))
    expect(tools.find((t) => t.name === 'grep')).toMatchObject({
      inputSchema: { type: 'object', required: ['pattern'] },
      annotations: { readOnlyHint: true },
    })
    expect(errors).toEqual([])
  })

  it('links a capped grep to a resource that reads back complete', async () => {
    const { client, errors } = await dshMcp([
      '--config',
      configFile('capped.json', { 'tool-fs-search': { grepMaxMatches: 3 } }),
      '--cwd',
      tree,
    ])
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    expect(text(result)).toContain('needle 3')
    expect(text(result)).not.toContain('needle 4')
    const link = result.content[1] as ResourceLink
    expect(link).toMatchObject({ type: 'resource_link', uri: expect.stringMatching(/^dsh-spill:\/\/mcp\//) })
    const { contents } = await client.readResource({ uri: link.uri })
    const complete = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : ''
    for (let i = 1; i <= 5; i++) expect(complete).toContain(`needle ${i}`)
    expect(complete).toBe(readFileSync(text(result).match(/stored at: (\S+)\./)![1]!, 'utf8'))
    // The search card rides as structuredContent, which the client checked against grep's outputSchema.
    expect(result.structuredContent).toEqual({
      card: 'search',
      shape: 'matches',
      files: [{ path: 'a.txt', matches: [1, 2, 3].map((n) => ({ lineNumber: n, line: `needle ${n}` })) }],
      truncated: true,
      total: 5,
      incomplete: false,
    })
    const { tools } = await client.listTools()
    expect(tools.find((t) => t.name === 'grep')?.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['files']),
    })
    expect(tools.find((t) => t.name === 'glob')?.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['paths']),
    })
    expect(errors).toEqual([])
  })

  it('returns a search stopped by its timeout as a result, not an error, its card incomplete', async () => {
    // An rg that prints its matches and never finishes, so the configured timeout always fires.
    const rg = writeBlockingRg(configs, (await import('@vscode/ripgrep')).rgPath)
    const { client, errors } = await dshMcp([
      '--config',
      configFile('stopped.json', { 'tool-fs-search': { rgPath: rg, timeoutMs: 300 } }),
      '--cwd',
      tree,
    ])
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    expect(result).toMatchObject({ isError: false, structuredContent: { card: 'search', shape: 'matches', incomplete: true } })
    expect(text(result)).toMatch(/\(Stopped after 0\.3 s, the search's time limit: partial result, [^\n]* so far; /)
    expect(result).not.toHaveProperty('_meta.dsh/errorCode')
    expect(errors).toEqual([])
  })

  it('puts SEARCH_INVALID_PATTERN in _meta for an invalid regex', async () => {
    const { client } = await dshMcp([])
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'a(' } })
    expect(result).toMatchObject({ isError: true, _meta: { 'dsh/errorCode': 'SEARCH_INVALID_PATTERN' } })
  })

  it('kills rg when the client cancels the grep', async () => {
    const server = await dshMcp([])
    const controller = new AbortController()
    const { fifo, call } = await blockedGrep(server, 'fifo-cancel', controller.signal)
    controller.abort()
    await expect(call).rejects.toThrow()
    expect(await waitUntil(() => processesMentioning(fifo).length === 0, 1000)).toBe(true)
    expect((await server.client.callTool({ name: 'grep', arguments: { pattern: 'needle 1' } })).isError).toBe(false)
  })

  it("runs in the client's first root without --cwd, and in --cwd with one", async () => {
    const roots = [{ uri: pathToFileURL(tree).href, name: 'tree' }]
    const rooted = await dshMcp([], { cwd: elsewhere, roots })
    expect(text(await rooted.client.callTool({ name: 'grep', arguments: { pattern: 'needle' } }))).toContain('a.txt')
    const chosen = await dshMcp(['--cwd', elsewhere], { cwd: tree, roots })
    expect(text(await chosen.client.callTool({ name: 'grep', arguments: { pattern: 'needle' } }))).toContain('elsewhere.txt')
  })

  const stops: [string, (server: Running) => Promise<void>][] = [
    ['stdin closes', (server) => server.client.close()],
    ['SIGTERM arrives', async (server) => void process.kill(server.transport.pid!, 'SIGTERM')],
  ]
  it.each(stops)('exits within 1 s, leaving no rg behind, when %s', async (_when, stop) => {
    const server = await dshMcp([])
    const pid = server.transport.pid!
    const { fifo } = await blockedGrep(server, `fifo-${pid}`)
    const stopped = Date.now()
    await stop(server)
    await server.closed
    expect(await waitUntil(() => processesMentioning(fifo).length === 0 && !alive(pid), 1000)).toBe(true)
    expect(Date.now() - stopped).toBeLessThan(1000)
    expect(server.errors).toEqual([])
  })

  it('lists no glob or grep, and says why on stderr, when no rg is runnable', async () => {
    const config = configFile('no-rg.json', {
      'tool-fs-search': { rgPath: '/nonexistent/rg' },
      // No `rg` on the executor's PATH either.
      'bash-local': { envSet: { PATH: '/nonexistent' } },
    })
    // @vscode/ripgrep picks its platform package by npm_config_arch: naming no platform makes the
    // packaged rg unresolvable, as on a platform it does not ship for.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_arch: 'none' }
    const server = await dshMcp(['--config', config], { env })
    const { tools } = await server.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(registered.filter((name) => name !== 'grep' && name !== 'glob'))
    expect(server.stderr()).toMatch(/glob and grep are not registered: ripgrep is not runnable in the bash executor/)
    expect(server.errors).toEqual([])
  })
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
