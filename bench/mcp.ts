// The MCP case: one narrow grep through a running `dsh mcp` over stdio vs the same call in process.
import path from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { REPO_ROOT } from './build.js'
import type { BenchContext, CaseResult, Corpus } from './cases.js'
import { callTool } from './harness.js'
import { runInterleaved, type Rounds } from './measure.js'
import { elapsedMs } from './processes.js'

/**
 * What MCP adds to a call: JSON-RPC framing, the stdio pipes and the server's dispatch. The server is
 * started once (a host keeps it running), so the difference is per call, not per process.
 */
export async function mcpCase(ctx: BenchContext, corpus: Corpus, spillRoot: string, rounds: Rounds): Promise<CaseResult> {
  const pattern = corpus.patterns.narrow
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'dsh.js'), 'mcp', '--cwd', corpus.root, '--spill-dir', spillRoot],
    stderr: 'inherit',
  })
  const client = new Client({ name: 'dsh-bench', version: '0' })
  await client.connect(transport)
  try {
    const viaMcp = async (): Promise<number> => {
      const started = process.hrtime.bigint()
      const result = await client.callTool({ name: 'grep', arguments: { pattern } })
      if (result.isError === true) throw new Error(`mcp grep ${pattern} failed: ${JSON.stringify(result.content)}`)
      return elapsedMs(started)
    }
    const inProcess = async (): Promise<number> => {
      const started = process.hrtime.bigint()
      await callTool(ctx.harness, 'grep', { pattern }, corpus.root)
      return elapsedMs(started)
    }
    const times = await runInterleaved(
      [
        { label: 'grep via dsh mcp', run: viaMcp },
        { label: 'grep in process', run: inProcess },
      ],
      rounds,
    )
    return {
      corpus: corpus.name,
      name: 'mcp grep (stdio)',
      detail: `\`${pattern}\` on ${corpus.name}, one server for every call`,
      labels: ['grep via dsh mcp', 'grep in process'],
      times,
    }
  } finally {
    await client.close()
  }
}
