// `npx tsx bench/gateway-ready.ts [runs]` (after `npm run build`): how long the reference servers take to be
// ready, called directly and behind `dsh mcp --upstream` (alone and together), and the bytes of the first
// tools/list a host receives when the gateway fronts 10,000 upstream tools. Medians of interleaved runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

const repo = fileURLToPath(new URL('..', import.meta.url))
const dsh = path.join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const upstreamScript = path.join(repo, 'bench', 'gateway-upstream.mjs')
const require = createRequire(import.meta.url)
const runs = Number(process.argv[2] ?? 5)

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-gateway-ready-'))
const SERVERS = {
  everything: { command: process.execPath, args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
  filesystem: { command: process.execPath, args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), dir] },
}
type Name = keyof typeof SERVERS

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench-host', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }))
  return client
}

/** The deferred tools tool_search's description accounts for: the names it shows and the count after them. */
function deferredCount(description: string): number {
  return (description.match(/mcp__/g) ?? []).length + Number(/(\d+) more/.exec(description)?.[1] ?? 0)
}

/** Milliseconds from spawning the server to its tools listed, spoken to directly; and how many tools. */
async function direct(name: Name): Promise<{ ms: number; tools: number }> {
  const started = performance.now()
  const client = await connect(SERVERS[name].command, SERVERS[name].args)
  const { tools } = await client.listTools()
  const ms = performance.now() - started
  await client.close()
  return { ms, tools: tools.length }
}

/** Milliseconds from spawning `dsh mcp --upstream` to tool_search accounting for `tools` deferred tools. */
async function gateway(names: Name[], tools: number): Promise<number> {
  const file = path.join(dir, `servers-${names.join('-')}.json`)
  writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(names.map((name) => [name, SERVERS[name]])) }))
  const started = performance.now()
  const host = await connect(process.execPath, [dsh, 'mcp', '--cwd', dir, '--upstream', file])
  for (;;) {
    const search = (await host.listTools()).tools.find((t) => t.name === 'tool_search')!
    if (deferredCount(search.description!) >= tools) break
    if (performance.now() - started > 120_000) throw new Error(`${names.join(', ')} not ready within 120 s`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const ms = performance.now() - started
  await host.close()
  return ms
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

try {
  const samples: Record<string, number[]> = {}
  const add = (label: string, ms: number) => void (samples[label] ??= []).push(ms)
  for (let run = 0; run < runs; run++) {
    const counts = { everything: 0, filesystem: 0 }
    for (const name of ['everything', 'filesystem'] as const) {
      const { ms, tools } = await direct(name)
      counts[name] = tools
      add(`${name}, directly (${tools} tools)`, ms)
    }
    const dshAlone = performance.now()
    const own = await connect(process.execPath, [dsh, 'mcp', '--cwd', dir])
    await own.listTools()
    add('dsh mcp alone, to its first tools/list', performance.now() - dshAlone)
    await own.close()
    for (const name of ['everything', 'filesystem'] as const) add(`${name}, behind dsh mcp --upstream`, await gateway([name], counts[name]))
    add('both, behind one dsh mcp --upstream', await gateway(['everything', 'filesystem'], counts.everything + counts.filesystem))
  }
  for (const [label, values] of Object.entries(samples)) {
    process.stdout.write(
      `${median(values).toFixed(0).padStart(6)} ms  ${label} (median of ${values.length}: ${values.map((v) => v.toFixed(0)).join(', ')})\n`,
    )
  }

  // 10,000 tools on one upstream, each with a two-parameter schema.
  const many = Array.from({ length: 10_000 }, (_, at) => ({
    name: `tool_${at}`,
    description: `Tool number ${at}: does one small thing in the bench service.`,
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', description: 'The item.' }, limit: { type: 'integer' } },
      required: ['id'],
    },
  }))
  const manyFile = path.join(dir, 'many.json')
  writeFileSync(manyFile, JSON.stringify(many))
  const listedDirectly = await connect(process.execPath, [upstreamScript, manyFile])
  const directBytes = Buffer.byteLength(JSON.stringify(await listedDirectly.listTools()))
  await listedDirectly.close()
  const servers = path.join(dir, 'many-servers.json')
  writeFileSync(servers, JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [upstreamScript, manyFile] } } }))
  const started = performance.now()
  const host = await connect(process.execPath, [dsh, 'mcp', '--cwd', dir, '--upstream', servers])
  let first = await host.listTools()
  const firstBytes = Buffer.byteLength(JSON.stringify(first))
  while (deferredCount(first.tools.find((t) => t.name === 'tool_search')!.description!) < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    first = await host.listTools()
  }
  const readyMs = performance.now() - started
  const readyBytes = Buffer.byteLength(JSON.stringify(first))
  await host.close()
  process.stdout.write(
    `10,000 tools: ${directBytes} B listed directly; behind dsh mcp --upstream ${firstBytes} B at the first tools/list, ${readyBytes} B once all are registered (${readyMs.toFixed(0)} ms)\n`,
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
