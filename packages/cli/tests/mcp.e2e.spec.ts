// `dsh mcp` as an MCP host runs it: the built command, spawned by the official client over stdio.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client, type ResourceLink, type Root } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { writeBlockingRg } from '../../../test-support/blocking-rg.js'
import { budgetMs, damageKeepingTime, processesMentioning, scratchDir, waitUntil, writeTree } from './io.js'

const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const bundle = join(repo, 'packages', 'cli', 'dist', 'dsh.mjs')

const tree = scratchDir('mcp-tree')
const elsewhere = scratchDir('mcp-elsewhere')
const spill = scratchDir('mcp-spill')
const configs = scratchDir('mcp-configs')

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
  options: { cwd?: string; env?: Record<string, string>; roots?: Root[]; modern?: boolean } = {},
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
    {
      ...(roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } }),
      // 'auto' probes with server/discover and speaks 2026-07-28 when the server does.
      ...(options.modern === true ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
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

  it('serves a link one dsh mcp process returned through another over the same store, never a path outside it', async () => {
    const capped = configFile('capped-links.json', { 'tool-fs-search': { grepMaxMatches: 2 } })
    const first = await dshMcp(['--config', capped, '--cwd', tree, '--session', 'one-shot'])
    const result = await first.client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    const link = result.content[1] as ResourceLink
    expect(link.uri).toMatch(/^dsh-spill:\/\/one-shot\/[0-9a-f]{12}-grep-results\.txt$/)
    await first.client.close()
    await first.closed
    // A second process, as a one-shot client's next run or another server behind a load balancer is.
    const second = await dshMcp(['--cwd', elsewhere, '--session', 'another'])
    const { contents } = await second.client.readResource({ uri: link.uri })
    const complete = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : ''
    for (let i = 1; i <= 5; i++) expect(complete).toContain(`needle ${i}`)
    const name = link.uri.split('/').at(-1)!
    for (const uri of [
      `dsh-spill://another/${name}`,
      `dsh-spill://one-shot/..%2F..%2F..%2Fetc%2Fpasswd`,
      `dsh-spill://..%2F..%2Fetc/passwd`,
      `dsh-spill://one-shot/000000000000-grep-results.txt`,
    ]) {
      await expect(second.client.readResource({ uri }), uri).rejects.toThrow(/no result is saved under/)
    }
  })

  it('answers from the index with a change made just before the call, which its watcher heard', async () => {
    const indexed = scratchDir('mcp-indexed')
    // Enough files that one candidate is not past the broad share (0.3).
    const others = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`lib/f${i}.ts`, `export const f${i} = ${i}\n`]))
    writeTree(indexed, { 'src/a.ts': 'export const alpha = 1\n', 'src/b.ts': 'export const beta = 2\n', ...others })
    const config = configFile('indexed.json', { 'index-local': { dir: join(configs, 'index') } })
    execFileSync(process.execPath, [bin, 'index', '--no-daemon', '--config', config], { cwd: indexed })
    const server = await dshMcp(['--config', config, '--cwd', indexed])
    const grep = async (pattern: string) => {
      const result = await server.client.callTool({ name: 'grep', arguments: { pattern } })
      return { text: text(result), index: (result.structuredContent as { index?: { used: boolean } }).index }
    }
    expect(await grep('alpha')).toMatchObject({ text: expect.stringContaining('src/a.ts'), index: { used: true } })
    // dsh mcp keeps a watcher: its sync markers' directory is beside the index (a one-shot search makes none).
    const [home] = readdirSync(join(configs, 'index'))
    expect(existsSync(join(configs, 'index', home!, 'sync'))).toBe(true)
    for (let i = 0; i < 5; i++) {
      writeTree(indexed, { [`src/new${i}/n.ts`]: `omega${i}\n`, 'src/b.ts': `omega${i}\n` })
      const answer = await grep(`omega${i}`)
      expect(answer.index).toMatchObject({ used: true })
      expect(answer.text).toContain(`src/new${i}/n.ts`)
      expect(answer.text).toContain('src/b.ts')
    }
  })

  it('loads the index of its --cwd and starts its watcher before the first call (docs/design.md#a-warm-process-loads-its-index-first)', async () => {
    const indexed = scratchDir('mcp-prepared')
    writeTree(indexed, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`lib/f${i}.ts`, `export const f${i} = ${i}\n`])))
    const config = configFile('prepared.json', { 'index-local': { dir: join(configs, 'prepared-index') } })
    execFileSync(process.execPath, [bin, 'index', '--no-daemon', '--config', config], { cwd: indexed })
    const [home] = readdirSync(join(configs, 'prepared-index'))
    const sync = join(configs, 'prepared-index', home!, 'sync')
    expect(existsSync(sync)).toBe(false)
    const server = await dshMcp(['--config', config, '--cwd', indexed])
    // No call yet: the watcher's sync markers' directory is there once it runs.
    expect(await waitUntil(() => existsSync(sync), budgetMs(10_000))).toBe(true)
    // A byte of the header damaged, its time kept: a call that read the file again would refuse it, so
    // an answer from the index is one from what the server loaded before the call.
    const { before, after } = damageKeepingTime(join(configs, 'prepared-index', home!, 'index.dshidx'))
    expect(after).toBe(before)
    const result = await server.client.callTool({ name: 'grep', arguments: { pattern: 'f7 = 7' } })
    expect(result.structuredContent).toMatchObject({ index: { used: true, changed: 0 } })
  })

  it('updates the index from its watcher once a search sees refreshAfter changes', async () => {
    const indexed = scratchDir('mcp-refresh')
    const others = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`lib/f${i}.ts`, `export const f${i} = ${i}\n`]))
    writeTree(indexed, others)
    const config = configFile('refresh.json', { 'index-local': { dir: join(configs, 'refresh-index'), refreshAfter: 3 } })
    execFileSync(process.execPath, [bin, 'index', '--no-daemon', '--config', config], { cwd: indexed })
    const server = await dshMcp(['--config', config, '--cwd', indexed])
    const grep = async (pattern: string) => {
      const result = await server.client.callTool({ name: 'grep', arguments: { pattern } })
      return { text: text(result), index: (result.structuredContent as { index?: { used: boolean; changed?: number } }).index }
    }
    expect((await grep('f1 = 1')).index).toMatchObject({ used: true, changed: 0 })
    writeTree(indexed, { 'lib/f2.ts': 'omega\n', 'lib/f3.ts': 'omega\n', 'lib/new.ts': 'omega\n' })
    // This search sees three changes and starts the refresh; the next waits for it and reads the update.
    expect((await grep('omega')).index).toMatchObject({ used: true, changed: 3 })
    const [home] = readdirSync(join(configs, 'refresh-index'))
    const answer = await grep('omega')
    expect(answer.index).toMatchObject({ used: true, changed: 0 })
    expect(answer.text).toMatch(/Found 3 matches/)
    expect(existsSync(join(configs, 'refresh-index', home!, 'update.dshidx'))).toBe(true)
  })

  it('puts SEARCH_INVALID_PATTERN in _meta for an invalid regex', async () => {
    const { client } = await dshMcp(['--cwd', tree])
    const result = await client.callTool({ name: 'grep', arguments: { pattern: 'a(' } })
    expect(result).toMatchObject({ isError: true, _meta: { 'dsh/errorCode': 'SEARCH_INVALID_PATTERN' } })
  })

  it('kills rg when the client cancels the grep', async () => {
    const server = await dshMcp(['--cwd', tree])
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

  it('serves a 2026-07-28 client over stdio: server/discover, then lists and calls the tools', async () => {
    const { client, errors } = await dshMcp([], { cwd: elsewhere, modern: true })
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(registered)
    // No roots in this revision: the request names its workspace, never the directory dsh started in.
    const named = await client.callTool({ name: 'grep', arguments: { pattern: 'needle' }, _meta: { 'dsh/cwd': tree } })
    expect(text(named)).toContain('a.txt')
    expect(named.structuredContent).toMatchObject({ card: 'search', shape: 'matches', total: 5 })
    const unnamed = client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    await expect(unnamed).rejects.toThrow(
      /no workspace to search.*send _meta\["dsh\/cwd"\] with an absolute path, start dsh mcp with --cwd DIR/,
    )
    expect(errors).toEqual([])
  })

  it('answers a call from a client that sends no roots with how to name a workspace, and goes on', async () => {
    const { client, errors } = await dshMcp([], { cwd: elsewhere })
    const unnamed = client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
    await expect(unnamed).rejects.toThrow(/no workspace to search.*client named no file:\/\/ root.*--cwd DIR/)
    // The session goes on: a listing still answers, and nothing searched the directory dsh started in.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(registered)
    expect(errors).toEqual([])
  })

  it("runs a call that names no workspace in the config's mcp.workspace, not the directory it started in", async () => {
    const config = configFile('workspace.json', { mcp: { workspace: tree } })
    for (const modern of [false, true]) {
      const { client } = await dshMcp(['--config', config], { cwd: elsewhere, modern })
      expect(text(await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } }))).toContain('a.txt')
    }
  })

  const stops: [string, (server: Running) => Promise<void>][] = [
    ['stdin closes', (server) => server.client.close()],
    ['SIGTERM arrives', async (server) => void process.kill(server.transport.pid!, 'SIGTERM')],
  ]
  it.each(stops)('exits at once, leaving no rg behind, when %s', async (_when, stop) => {
    const server = await dshMcp(['--cwd', tree])
    const pid = server.transport.pid!
    const { fifo } = await blockedGrep(server, `fifo-${pid}`)
    const stopped = Date.now()
    await stop(server)
    await server.closed
    expect(await waitUntil(() => processesMentioning(fifo).length === 0 && !alive(pid), 1000)).toBe(true)
    expect(Date.now() - stopped).toBeLessThan(budgetMs(1000))
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

/**
 * Spawns `dsh mcp ARGS` spoken to in raw lines, as a broken host would, and initializes it. `answer(id)`
 * waits for the message it sent with that id; `peakRssBytes()` reads the process's high-water mark.
 */
async function rawDshMcp(args: readonly string[]) {
  const child = spawn(process.execPath, [bin, 'mcp', '--spill-dir', spill, ...args], { cwd: tree, stdio: ['pipe', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  const received: { id?: unknown; error?: { code: number; message: string }; result?: unknown }[] = []
  let rest = ''
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n')
    rest = lines.pop()!
    for (const line of lines) received.push(JSON.parse(line) as (typeof received)[number])
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const write = (data: string | Buffer): Promise<void> => new Promise((resolve) => child.stdin.write(data, () => resolve()))
  const answer = async (id: unknown) => {
    const found = () => received.find((message) => message.id === id)
    expect(await waitUntil(() => found() !== undefined, 20_000), `an answer with id ${JSON.stringify(id)}`).toBe(true)
    return found()!
  }
  const peakRssBytes = () => Number(readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)![1]) * 1024
  const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
  await write(`${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: initialize })}\n`)
  await answer('init')
  await write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  const end = async () => {
    child.stdin.end()
    return exited
  }
  return { write, answer, received, stderr: () => stderr, peakRssBytes, end }
}

describe('dsh mcp given bad input', () => {
  const ping = (id: unknown) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`

  it('answers a line that is not JSON, a wrongly typed request and one over 4 MiB with errors, and serves on', async () => {
    const server = await rawDshMcp([])
    await server.write('{"jsonrpc": "2.0", "id": 1, "method": \n')
    await server.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 5 } })}\n`)
    const big = {
      method: 'tools/call',
      params: { name: 'grep', arguments: { pattern: 'x'.repeat(5 * 1024 * 1024) } },
      jsonrpc: '2.0',
      id: 3,
    }
    await server.write(`${JSON.stringify(big)}\n`)
    await server.write(ping(4))
    expect(await server.answer(4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} })
    expect(server.received.find((message) => message.id === null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error: .*; each line must hold one JSON-RPC message$/) },
    })
    expect((await server.answer(2)).error).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for resources\/read: uri: /),
    })
    expect((await server.answer(3)).error).toEqual({
      code: -32600,
      message: `Invalid Request: the message is ${JSON.stringify(big).length} bytes, over the limit of 4194304 (mcp.messageMaxBytes); it was dropped unread`,
    })
    expect(await server.end()).toBe(0)
    expect(server.stderr()).toMatch(/^dsh: warning: mcp: refused a message from the client: Parse error: /m)
  })

  it('drops a 128 MiB message as it arrives, with mcp.messageMaxBytes from --config, its memory growing far less', async () => {
    const config = configFile('small-messages.json', { mcp: { messageMaxBytes: 65_536 } })
    const server = await rawDshMcp(['--config', config])
    await server.write(ping(1))
    await server.answer(1)
    const before = server.peakRssBytes()
    const mib = Buffer.alloc(1024 * 1024, 'x')
    await server.write('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"grep","arguments":{"pattern":"')
    for (let i = 0; i < 128; i++) await server.write(mib)
    await server.write('"}},"id":"huge"}\n')
    await server.write(ping(2))
    expect(await server.answer(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
    expect((await server.answer('huge')).error).toEqual({
      code: -32600,
      message: expect.stringContaining('over the limit of 65536 (mcp.messageMaxBytes)'),
    })
    // Held whole, the message alone would add 128 MiB; dropped as it passes, the process grows by its
    // stream's chunks until they are collected.
    expect(server.peakRssBytes() - before).toBeLessThan(64 * 1024 * 1024)
    expect(await server.end()).toBe(0)
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
