// `npx tsx bench/gateway-bytes.ts` (after `npm run build`): the prompt bytes a 100-tool upstream set costs a
// host, as the JSON of the tools/list results it receives: each server listed directly, and the same
// servers behind `dsh mcp --upstream`, before and after tool_search loads five tools.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, type Tool } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { CATALOG_ROWS } from '../packages/tool-search/tests/catalog.js'

const repo = fileURLToPath(new URL('..', import.meta.url))
const upstreamScript = path.join(repo, 'bench', 'gateway-upstream.mjs')
const dsh = path.join(repo, 'packages', 'cli', 'bin', 'dsh.js')

/** Parameters MCP servers' tools commonly take, each with the description a server gives it. */
const PARAMETERS: Record<string, object> = {
  owner: { type: 'string', description: 'The account owner of the repository. The name is not case sensitive.' },
  repo: { type: 'string', description: 'The name of the repository without the .git extension. The name is not case sensitive.' },
  channel_id: { type: 'string', description: 'The ID of the channel, e.g. C01234567. Use list_channels to find it.' },
  text: { type: 'string', description: 'The text of the message, in the service markup (mrkdwn); at most 40,000 characters.' },
  query: { type: 'string', description: 'Search query. Supports the service search syntax, e.g. "from:@me in:#general".' },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'How many results to return, at most 100.' },
  cursor: { type: 'string', description: 'Pagination cursor from the previous response; omit for the first page.' },
  issue_id: { type: 'string', description: 'The issue identifier, e.g. ENG-123, or its UUID.' },
  title: { type: 'string', description: 'The title, in plain text; at most 256 characters.' },
  body: { type: 'string', description: 'The body, in Markdown.' },
  labels: { type: 'array', items: { type: 'string' }, description: 'Label names to apply; labels that do not exist are created.' },
  state: { type: 'string', enum: ['open', 'closed', 'all'], default: 'open', description: 'Filter by state.' },
  url: { type: 'string', format: 'uri', description: 'The URL to open; http and https only.' },
  selector: { type: 'string', description: 'A CSS selector or an element reference from the last snapshot.' },
  timeout_ms: { type: 'integer', minimum: 0, description: 'How long to wait, in milliseconds; 0 waits forever.' },
  path: { type: 'string', description: 'Path of the file, relative to the repository root.' },
}
const KEYS = Object.keys(PARAMETERS)

/** A tool as its server lists it: a schema of three to six parameters, chosen from the name so runs agree. */
function upstreamTool(name: string, description: string): Tool {
  let seed = [...name].reduce((sum, char) => (Math.imul(sum, 31) + char.charCodeAt(0)) >>> 0, 7)
  const properties: Record<string, object> = {}
  for (let n = 3 + (seed % 4); Object.keys(properties).length < n; seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) {
    const key = KEYS[(seed >>> 16) % KEYS.length]!
    properties[key] = PARAMETERS[key]!
  }
  const required = Object.keys(properties).slice(0, 2)
  return {
    name,
    description,
    inputSchema: { type: 'object', properties, required } as Tool['inputSchema'],
    annotations: { readOnlyHint: name.startsWith('get') || name.startsWith('list') },
  }
}

/** The first 100 MCP tools of the ranking tests' catalog, by server. */
function upstreamSet(): Map<string, Tool[]> {
  const servers = new Map<string, Tool[]>()
  for (const row of CATALOG_ROWS.filter((r) => r.isMcp === true).slice(0, 100)) {
    const [, server, tool] = row.name.split('__') as [string, string, string]
    servers.set(server, [...(servers.get(server) ?? []), upstreamTool(tool, row.description)])
  }
  return servers
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value))

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench-host', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }))
  return client
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-gateway-bytes-'))
try {
  const servers = upstreamSet()
  const mcpServers: Record<string, { command: string; args: string[] }> = {}
  let direct = 0
  let count = 0
  for (const [name, tools] of servers) {
    const file = path.join(dir, `${name}.json`)
    writeFileSync(file, JSON.stringify(tools))
    mcpServers[name] = { command: process.execPath, args: [upstreamScript, file] }
    const client = await connect(process.execPath, [upstreamScript, file])
    const listed = await client.listTools()
    direct += bytes(listed)
    count += listed.tools.length
    await client.close()
  }
  const config = path.join(dir, 'servers.json')
  writeFileSync(config, JSON.stringify({ mcpServers }))

  const own = await connect(process.execPath, [dsh, 'mcp', '--cwd', dir])
  const dshAlone = bytes(await own.listTools())
  await own.close()

  const host = await connect(process.execPath, [dsh, 'mcp', '--cwd', dir, '--upstream', config])
  for (const deadline = Date.now() + 60_000; ;) {
    const description = (await host.listTools()).tools.find((t) => t.name === 'tool_search')?.description ?? ''
    // The names shown, and the count after them once the names pass the listing's bound.
    if ((description.match(/mcp__/g) ?? []).length + Number(/(\d+) more/.exec(description)?.[1] ?? 0) >= count) break
    if (Date.now() > deadline) throw new Error('the upstreams did not all connect within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const before = await host.listTools()
  const gateway = bytes(before)
  await host.callTool({ name: 'tool_search', arguments: { query: 'slack send message' } })
  const loaded = await host.listTools()
  await host.close()

  const rows: [string, number][] = [
    [`${count} upstream tools (${servers.size} servers), each server listed directly`, direct],
    ['dsh mcp alone (glob, grep, read)', dshAlone],
    ['both, as a host without deferral holds them', direct + dshAlone],
    ['dsh mcp --upstream: dsh, tool_search, and the deferred tools by name', gateway],
    [`the same after tool_search loaded ${loaded.tools.length - before.tools.length} tools`, bytes(loaded)],
  ]
  for (const [label, value] of rows) process.stdout.write(`${String(value).padStart(8)} B  ${label}\n`)
  process.stdout.write(`gateway / direct (with dsh's own tools): ${((gateway / (direct + dshAlone)) * 100).toFixed(1)}%\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
