// `dsh mcp [--upstream FILE]`: the harness served on stdio, in front of the MCP servers FILE lists.
import { readFile, stat } from 'node:fs/promises'
import { errorMessage, type Harness, type Logger } from '@dsh/core'
import type { CliIo } from './cli-io.js'
import { UsageError } from './command-line.js'

/** What `dsh mcp` runs with. */
export interface McpRun {
  harness: Harness
  /** The upstream file, absolute, when `--upstream` was given. */
  upstream: string | undefined
  /** `--cwd`, when given: client roots are ignored then. */
  cwd: string | undefined
  fallbackCwd: string
  session: string
  logger: Logger
  signal: AbortSignal
}

/**
 * Serves until stdin closes or the signal aborts (SIGTERM, SIGINT, SIGHUP). With upstreams, it starts
 * them beside the server and ends them after it: each stdio upstream is this process's child, and none
 * outlives it.
 */
export async function runMcpCommand(run: McpRun, io: CliIo): Promise<void> {
  // Loaded only for this command: the MCP SDK's schemas cost ~200 ms to build, which every other
  // command would pay for nothing. The client SDK loads later still, only when a gateway connects.
  const { parseUpstreamConfig, serveMcpStdio, startUpstreamGateway, UPSTREAM_CONFIG_MAX_BYTES } = await import('@dsh/mcp')
  const servers =
    run.upstream === undefined
      ? undefined
      : parseUpstreamConfig(await readUpstreamFile(run.upstream, UPSTREAM_CONFIG_MAX_BYTES), run.upstream)
  const gateway =
    servers === undefined
      ? undefined
      : startUpstreamGateway({
          servers,
          registry: run.harness.registry,
          logger: run.logger,
          clientInfo: { name: 'dsh', version: io.version },
        })
  try {
    await serveMcpStdio({
      harness: run.harness,
      ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
      fallbackCwd: run.fallbackCwd,
      session: run.session,
      name: 'dsh',
      version: io.version,
      logger: run.logger,
      stdin: io.stdio.stdin,
      stdout: io.stdio.stdout,
      signal: run.signal,
      ...(gateway === undefined ? {} : { toolChanges: gateway }),
    })
  } finally {
    await gateway?.close()
  }
}

/** The file's text, refused before reading when it is not a file or larger than an mcpServers file can be. */
async function readUpstreamFile(file: string, maxBytes: number): Promise<string> {
  let problem: string
  try {
    const info = await stat(file)
    if (!info.isFile()) problem = 'it is not a file'
    else if (info.size > maxBytes) problem = `it is ${info.size} bytes, and an mcpServers file is at most ${maxBytes}`
    else return new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file))
  } catch (error) {
    problem = errorMessage(error)
  }
  throw new UsageError(`cannot read upstream file ${file}: ${problem}`, { command: 'mcp' })
}
