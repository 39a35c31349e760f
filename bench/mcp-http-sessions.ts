// `npx tsx bench/mcp-http-sessions.ts [N]` (after `npm run build`): what one HTTP session costs `dsh mcp --http`.
// The shipped server runs in its own process; a preloaded module answers SIGUSR2 with its heap after two
// full collections and its RSS, so what is measured is the server alone. N sessions (default 64, the
// default bound) each initialize, list the tools and run one grep, as an agent's first turn does; then
// every session is ended (DELETE) and the server is measured again, to show their memory returns.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'

const repo = fileURLToPath(new URL('..', import.meta.url))
const dsh = path.join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const sessions = Number(process.argv[2] ?? 64)
const TOKEN = 'bench-token-0123456789abcdef'
const MARKER = 'DSH_BENCH_MEMORY='

// gc() twice: the first collection queues finalizers that the second lets go.
const REPORT = `import { readFileSync, writeSync } from 'node:fs'
process.on('SIGUSR2', () => { gc(); gc(); const rss = /VmRSS:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]
  writeSync(2, '${MARKER}' + process.memoryUsage().heapUsed + ' ' + rss * 1024 + '\\n') })`

const tree = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-http-'))
writeFileSync(path.join(tree, 'a.txt'), 'needle one\nneedle two\n')
const config = path.join(tree, 'config.json')
writeFileSync(config, JSON.stringify({ mcp: { httpMaxSessions: Math.max(sessions, 1) } }))
const env = {
  ...process.env,
  NODE_OPTIONS: `--expose-gc --import data:text/javascript,${encodeURIComponent(REPORT)}`,
  DSH_MCP_TOKEN: TOKEN,
}
const server = spawn(process.execPath, [dsh, 'mcp', '--http', '127.0.0.1:0', '--cwd', tree, '--config', config], {
  env,
  stdio: ['ignore', 'ignore', 'pipe'],
})
let stderr = ''
const waiters: ((line: string) => void)[] = []
server.stderr.on('data', (chunk: Buffer) => {
  stderr += chunk.toString()
  for (;;) {
    const newline = stderr.indexOf('\n')
    if (newline < 0) break
    const line = stderr.slice(0, newline)
    stderr = stderr.slice(newline + 1)
    for (const waiter of waiters.splice(0)) waiter(line)
  }
})
const nextLine = (): Promise<string> => new Promise((resolve) => waiters.push(resolve))

async function measure(): Promise<{ heap: number; rss: number }> {
  const line = nextLine()
  server.kill('SIGUSR2')
  const [heap, rss] = (await line).slice(MARKER.length).split(' ').map(Number)
  return { heap: heap!, rss: rss! }
}

async function session(url: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } })
  const client = new Client({ name: 'bench', version: '1' })
  await client.connect(transport)
  await client.listTools()
  await client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
  return client
}

async function end(client: Client): Promise<void> {
  await (client.transport as StreamableHTTPClientTransport).terminateSession()
  await client.close()
}

const url = /^dsh: serving MCP at (\S+)$/.exec(await nextLine())![1]!
// One session first, ended, so code loaded on first use counts in the baseline, not in the sessions.
await end(await session(url))
const before = await measure()
const clients: Client[] = []
for (let i = 0; i < sessions; i++) clients.push(await session(url))
const open = await measure()
for (const client of clients) await end(client)
const after = await measure()
server.kill('SIGTERM')
rmSync(tree, { recursive: true, force: true })

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
console.log(`${sessions} sessions, each initialize + tools/list + one grep, standing event stream open:`)
console.log(
  `  heap: ${mb(before.heap)} before, ${mb(open.heap)} open (${kib((open.heap - before.heap) / sessions)} a session), ${mb(after.heap)} after all ended`,
)
console.log(
  `  RSS:  ${mb(before.rss)} before, ${mb(open.rss)} open (${kib((open.rss - before.rss) / sessions)} a session), ${mb(after.rss)} after all ended`,
)
