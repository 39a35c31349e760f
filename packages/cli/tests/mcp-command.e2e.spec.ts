// `dsh mcp --upstream FILE`: in process through the official client, and as the built command a host spawns.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { describe, expect, it } from 'vitest'
import { EXIT } from '@dsh/cli'
import { MANY_SCRIPT, NOTES_SCRIPT } from '../../mcp/tests/upstream/servers.js'
import { budgetMs, dsh, processesMentioning, scratchDir, waitUntil, writeTree } from './io.js'

const dir = scratchDir('mcp-upstream')
const spill = scratchDir('mcp-upstream-spill')
const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')

/**
 * An mcpServers file fronting the notes server, its processes tagged so this test finds only its own
 * (the file's name leaves the tag out, or dsh's own command line would mention it).
 */
let files = 0
function upstreamFile(tag: string): string {
  const file = join(dir, `servers-${++files}.json`)
  writeFileSync(file, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SCRIPT, tag] } } }))
  return file
}

const names = (tools: readonly Tool[]) => tools.map((t) => t.name)

/** Waits until tool_search's description names the notes server's tools: the upstream is connected. */
async function untilConnected(client: Client): Promise<void> {
  const deadline = Date.now() + budgetMs(20_000)
  for (;;) {
    const search = (await client.listTools()).tools.find((t) => t.name === 'tool_search')
    if (search?.description?.includes('mcp__notes__add_note') === true) return
    if (Date.now() > deadline) throw new Error('the notes upstream did not connect')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
const text = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text

describe('dsh mcp --upstream, in process', () => {
  it("serves dsh's tools and tool_search, loads an upstream tool, forwards its call, and ends the upstream with stdin", async () => {
    const tag = `in-process-${process.pid}-${Date.now()}`
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const done = dsh(['--spill-dir', spill, 'mcp', '--upstream', upstreamFile(tag)], dir, { stdio: { stdin, stdout } })
    const client = new Client({ name: 'host', version: '1' })
    await client.connect(new StdioServerTransport(stdout, stdin))
    await untilConnected(client)
    expect(processesMentioning(tag)).toHaveLength(1)
    expect(names((await client.listTools()).tools)).toEqual(['glob', 'grep', 'read', 'tool_search', 'call_tool', 'mcp__notes__pinned'])
    expect(text(await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__add_note' } }))).toMatch(
      /^Loaded 1 tool/,
    )
    expect(names((await client.listTools()).tools)).toContain('mcp__notes__add_note')
    expect(await client.callTool({ name: 'mcp__notes__add_note', arguments: { text: 'milk' } })).toMatchObject({
      content: [{ type: 'text', text: 'added "milk"' }],
      structuredContent: { count: 1 },
    })
    stdin.end()
    expect(await done).toEqual({ code: EXIT.ok, stdout: '', stderr: '' })
    expect(processesMentioning(tag)).toEqual([])
  })

  it("relays an upstream's stderr on dsh's, each line under the server's name", async () => {
    const file = join(dir, `servers-${++files}.json`)
    writeFileSync(file, JSON.stringify({ mcpServers: { many: { command: process.execPath, args: [MANY_SCRIPT] } } }))
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const done = dsh(['--spill-dir', spill, 'mcp', '--upstream', file], dir, { stdio: { stdin, stdout } })
    const client = new Client({ name: 'host', version: '1' })
    await client.connect(new StdioServerTransport(stdout, stdin))
    expect(text(await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__many__grow' } }))).toMatch(/^Loaded 1 tool/)
    stdin.end()
    const { code, stderr } = await done
    expect(code).toBe(EXIT.ok)
    expect(stderr.split('\n')).toEqual(
      expect.arrayContaining(['[many] many started with 3 tools', '[many] half a line, then [other] forged']),
    )
  })

  it.each([
    ['a missing file', ['--upstream', 'missing.json'], /^dsh: cannot read upstream file .*missing\.json: ENOENT/],
    ['a directory', ['--upstream', '.'], /^dsh: cannot read upstream file .*: it is not a file\n/],
    ['a file that is not an mcpServers file', ['--upstream', 'bad.json'], /^dsh: upstream file .*bad\.json must be \{"mcpServers"/],
    [
      'a file larger than an mcpServers file is',
      ['--upstream', 'huge.json'],
      /: it is 1048577 bytes, and an mcpServers file is at most 1048576\n/,
    ],
  ])('refuses %s before serving, exit 2', async (_, argv, message) => {
    writeFileSync(join(dir, 'bad.json'), '{"servers": {}}')
    writeFileSync(join(dir, 'huge.json'), ' '.repeat(1024 * 1024 + 1))
    const result = await dsh(['mcp', ...argv], dir)
    expect(result).toMatchObject({ code: EXIT.usage, stdout: '' })
    expect(result.stderr).toMatch(message)
  })
})

describe('dsh mcp --upstream, the built command', () => {
  /** Spawns the built `dsh mcp --upstream` as a host does, and waits for the notes server to be connected. */
  async function gateway(tag: string) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, '--spill-dir', spill, '--cwd', dir, 'mcp', '--upstream', upstreamFile(tag)],
      cwd: dir,
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const client = new Client({ name: 'host', version: '1' })
    await client.connect(transport)
    await untilConnected(client)
    expect(processesMentioning(tag)).toHaveLength(1)
    return { client, transport, stderr: () => stderr }
  }

  it('leaves no upstream process when the host closes its stdin', async () => {
    const tag = `stdin-${process.pid}-${Date.now()}`
    const { client } = await gateway(tag)
    await client.close()
    expect(await waitUntil(() => processesMentioning(tag).length === 0, 10_000)).toBe(true)
  })

  it('leaves no upstream process when it is sent SIGTERM', async () => {
    const tag = `sigterm-${process.pid}-${Date.now()}`
    const { client, transport } = await gateway(tag)
    const closed = new Promise<void>((resolve) => (client.onclose = resolve))
    process.kill(transport.pid!, 'SIGTERM')
    await closed
    expect(await waitUntil(() => processesMentioning(tag).length === 0, 10_000)).toBe(true)
  })

  it('reports an upstream that exits on stderr, and keeps serving', async () => {
    const tag = `exits-${process.pid}-${Date.now()}`
    const { client, stderr } = await gateway(tag)
    await client.callTool({ name: 'tool_search', arguments: { query: 'select:mcp__notes__crash' } })
    expect(await client.callTool({ name: 'mcp__notes__crash', arguments: {} })).toMatchObject({ isError: true })
    expect(await waitUntil(() => stderr().includes('dsh: warning: upstream notes exited; its 7 tools are removed'), 10_000)).toBe(true)
    expect((await client.callTool({ name: 'grep', arguments: { pattern: 'x' } })).isError).toBe(false)
    await client.close()
  })
})

describe('dsh mcp --http, in process', () => {
  const TOKEN = 'in-process-token-0123456789abcdef'

  /** Runs `dsh mcp --http ARGS` in process; resolves with the URL it printed, and stops it as SIGTERM would. */
  async function serving(argv: readonly string[]) {
    writeTree(dir, { token: `${TOKEN}\n`, 'tree/a.txt': 'needle in the tree\n' })
    const before = process.listeners('SIGTERM')
    let stderr = ''
    let printed!: (url: string) => void
    const url = new Promise<string>((resolve) => (printed = resolve))
    const stderrSink = {
      write: (text: string) => {
        stderr += text
        const match = /^dsh: serving MCP at (\S+)$/m.exec(stderr)
        if (match !== null) printed(match[1]!)
      },
    }
    const done = dsh(['mcp', '--cwd', join(dir, 'tree'), ...argv], dir, { stderr: stderrSink })
    const at = await Promise.race([url, done.then((run) => Promise.reject(new Error(`dsh ended: ${JSON.stringify(run)} ${stderr}`)))])
    const sigterm = process.listeners('SIGTERM').find((listener) => !before.includes(listener))!
    return {
      url: at,
      stop: async () => {
        sigterm('SIGTERM')
        return { ...(await done), stderr }
      },
    }
  }

  async function connect(url: string, token: string | null) {
    const transport = new StreamableHTTPClientTransport(
      new URL(url),
      token === null ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
    )
    const client = new Client({ name: 'host', version: '1' })
    await client.connect(transport)
    return client
  }

  it('serves grep at the URL it prints with the token file, refuses a client without it, and ends on SIGTERM', async () => {
    const { url, stop } = await serving(['--http', '127.0.0.1:0', '--token-file', 'token'])
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    await expect(connect(url, null)).rejects.toThrow(/Unauthorized/)
    const client = await connect(url, TOKEN)
    expect(text(await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } }))).toContain('a.txt')
    expect(await stop()).toEqual({ code: EXIT.ok, stdout: '', stderr: `dsh: serving MCP at ${url}\n` })
  })

  it('takes the token from DSH_MCP_TOKEN when no file names one', async () => {
    process.env.DSH_MCP_TOKEN = TOKEN
    try {
      const { url, stop } = await serving(['--http', '127.0.0.1:0'])
      await expect(connect(url, `${TOKEN}x`)).rejects.toThrow(/Unauthorized: the bearer token is wrong/)
      const client = await connect(url, TOKEN)
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('grep')
      expect((await stop()).code).toBe(EXIT.ok)
    } finally {
      delete process.env.DSH_MCP_TOKEN
    }
  })

  it.each([
    [
      'an address other machines reach, without a token',
      ['--http', '0.0.0.0:0'],
      /^dsh: --http 0\.0\.0\.0:0: other machines can reach 0\.0\.0\.0, so requests need a bearer token; give one with --token-file FILE or DSH_MCP_TOKEN\n/,
    ],
    ['an address that is not HOST:PORT', ['--http', 'localhost'], /^dsh: --http "localhost" is not HOST:PORT/],
    ['--token-file without --http', ['--token-file', 'token'], /^dsh: --token-file goes with --http\n/],
    ['a missing token file', ['--http', '127.0.0.1:0', '--token-file', 'missing'], /^dsh: cannot read token file .*missing: ENOENT/],
    [
      'a token file that is too large',
      ['--http', '127.0.0.1:0', '--token-file', 'big-token'],
      /: it is 4097 bytes, and a token file is at most 4096\n/,
    ],
    [
      'a token file of two lines',
      ['--http', '127.0.0.1:0', '--token-file', 'two-lines'],
      /^dsh: token file .*two-lines must hold one token of letters, digits and -._~\+\/ /,
    ],
    [
      'a short token',
      ['--http', '127.0.0.1:0', '--token-file', 'short'],
      /^dsh: token file .*short holds a token of 5 characters; use at least 16 /,
    ],
  ])('refuses %s before serving, exit 2', async (_, argv, message) => {
    writeTree(dir, { 'big-token': 'x'.repeat(4097), 'two-lines': 'abcdefghijklmnopq\nrstuvwxyz\n', short: 'short\n' })
    const result = await dsh(['mcp', ...argv], dir)
    expect(result).toMatchObject({ code: EXIT.usage, stdout: '' })
    expect(result.stderr).toMatch(message)
  })

  it('refuses a DSH_MCP_TOKEN with a space in it, which no header could carry', async () => {
    process.env.DSH_MCP_TOKEN = 'two words in one token'
    try {
      const result = await dsh(['mcp', '--http', '127.0.0.1:0'], dir)
      expect(result.stderr).toMatch(/^dsh: DSH_MCP_TOKEN must hold one token/)
    } finally {
      delete process.env.DSH_MCP_TOKEN
    }
  })
})
