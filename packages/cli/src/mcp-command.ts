// `dsh mcp [--upstream FILE] [--http HOST:PORT]`: the harness served on stdio or HTTP, in front of the MCP servers FILE lists.
import { readFile, stat } from 'node:fs/promises'
import { errorMessage, type Harness, type Logger } from '@dsh/core'
import type { CliIo } from './cli-io.js'
import { UsageError } from './command-line.js'
import { CARD_APP_BUNDLE, readSearchCardBundle, renderSearchCardAppPage } from './html.js'

/** What `dsh mcp` runs with. */
export interface McpRun {
  harness: Harness
  /** The upstream file, absolute, when `--upstream` was given. */
  upstream: string | undefined
  /** `--http HOST:PORT`, as typed, when given: serve Streamable HTTP instead of stdio. */
  http: string | undefined
  /** The token file, absolute, when `--token-file` was given. */
  tokenFile: string | undefined
  /** `$DSH_MCP_TOKEN`: the token when no file names one. */
  envToken: string | undefined
  /**
   * `--cwd`, when given: client roots are ignored then. Without it a call runs where the client or the
   * config names; the directory `dsh mcp` happens to start in is never a silent default
   * (docs/design.md#where-a-call-runs).
   */
  cwd: string | undefined
  session: string
  logger: Logger
  signal: AbortSignal
}

/** The largest token file read: a token is a line, and anything longer is the wrong file. */
export const TOKEN_FILE_MAX_BYTES = 4096

/** The shortest token taken: 16 characters of `openssl rand -hex 32` are 64 bits, past guessing over HTTP. */
export const TOKEN_MIN_CHARS = 16

/**
 * Serves until stdin closes (stdio) or the signal aborts (SIGTERM, SIGINT, SIGHUP). With upstreams, it
 * starts them beside the server and ends them after it: each stdio upstream is this process's child,
 * and none outlives it. Over HTTP it says where it listens on stderr, the one line a script waits for.
 */
export async function runMcpCommand(run: McpRun, io: CliIo): Promise<void> {
  // Loaded only for this command: the MCP SDK's schemas cost ~200 ms to build, which every other
  // command would pay for nothing. The client SDK loads later still, only when a gateway connects.
  const mcp = await import('@dsh/mcp')
  // Every argument is checked before an upstream starts or a port is taken.
  const http = run.http === undefined ? undefined : await httpSettings(run, mcp.parseListenAddress)
  if (http === undefined && run.tokenFile !== undefined) throw new UsageError('--token-file goes with --http', { command: 'mcp' })
  const servers =
    run.upstream === undefined
      ? undefined
      : mcp.parseUpstreamConfig(await readSmallFile(run.upstream, 'upstream file', mcp.UPSTREAM_CONFIG_MAX_BYTES), run.upstream)
  const gateway =
    servers === undefined
      ? undefined
      : mcp.startUpstreamGateway({
          servers,
          registry: run.harness.registry,
          logger: run.logger,
          clientInfo: { name: 'dsh', version: io.version },
          // The mcp plugin is one of DSH_PLUGINS, so its settings are always there.
          callTool: run.harness.get('mcpGateway')!.callTool,
          stderr: (text) => void io.stderr.write(text),
        })
  const server = {
    harness: run.harness,
    searchCardAppHtml: await searchCardAppPage(run.logger),
    ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
    session: run.session,
    name: 'dsh',
    version: io.version,
    logger: run.logger,
    ...(gateway === undefined ? {} : { toolChanges: gateway }),
  }
  try {
    if (http === undefined) {
      await mcp.serveMcpStdio({ ...server, stdin: io.stdio.stdin, stdout: io.stdio.stdout, signal: run.signal })
    } else {
      const onListening = (url: string): void => void io.stderr.write(`dsh: serving MCP at ${url}\n`)
      await mcp.serveMcpHttp({ ...server, ...http, signal: run.signal, onListening })
    }
  } finally {
    await gateway?.close()
  }
}

/**
 * The search card's MCP App page, its bundle found from `near` as `readSearchCardBundle` finds it;
 * without the bundle (a broken install) the tools are served without the App, and stderr says so.
 */
export async function searchCardAppPage(logger: Logger, near?: string): Promise<string | undefined> {
  try {
    return renderSearchCardAppPage(await readSearchCardBundle(near, CARD_APP_BUNDLE))
  } catch (error) {
    logger.warn(`mcp: the search card's MCP App is not served: ${errorMessage(error)}`)
    return undefined
  }
}

type ParseListenAddress = (typeof import('@dsh/mcp'))['parseListenAddress']

/** The address and token `--http` serves with; a loopback address may go without a token, no other may. */
async function httpSettings(run: McpRun, parseListenAddress: ParseListenAddress) {
  const parsed = parseListenAddress(run.http!)
  if (!parsed.ok) throw new UsageError(`--http ${parsed.problem}`, { command: 'mcp' })
  const token =
    run.tokenFile !== undefined
      ? checkToken(stripLineEnd(await readSmallFile(run.tokenFile, 'token file', TOKEN_FILE_MAX_BYTES)), `token file ${run.tokenFile}`)
      : run.envToken === undefined
        ? undefined
        : checkToken(run.envToken, 'DSH_MCP_TOKEN')
  const { address } = parsed
  if (!address.loopback && token === undefined) {
    throw new UsageError(
      `--http ${run.http}: other machines can reach ${address.host}, so requests need a bearer token; give one with --token-file FILE or DSH_MCP_TOKEN`,
      { command: 'mcp' },
    )
  }
  return { address, token }
}

/** A file's last line ending, which an editor or `echo` adds, is not part of the token. */
function stripLineEnd(text: string): string {
  return text.replace(/\r?\n$/, '')
}

/** The token as an Authorization header carries it: RFC 6750's b64token characters, and long enough. */
function checkToken(token: string, source: string): string {
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    throw new UsageError(`${source} must hold one token of letters, digits and -._~+/ (openssl rand -hex 32 makes one)`, {
      command: 'mcp',
    })
  }
  if (token.length < TOKEN_MIN_CHARS) {
    throw new UsageError(`${source} holds a token of ${token.length} characters; use at least ${TOKEN_MIN_CHARS} (openssl rand -hex 32)`, {
      command: 'mcp',
    })
  }
  return token
}

/** The file's text, refused before reading when it is not a file or larger than such a file can be. */
async function readSmallFile(file: string, what: 'upstream file' | 'token file', maxBytes: number): Promise<string> {
  let problem: string
  try {
    const info = await stat(file)
    if (!info.isFile()) problem = 'it is not a file'
    else if (info.size > maxBytes)
      problem = `it is ${info.size} bytes, and ${what === 'upstream file' ? 'an mcpServers file' : 'a token file'} is at most ${maxBytes}`
    else return new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file))
  } catch (error) {
    problem = errorMessage(error)
  }
  throw new UsageError(`cannot read ${what} ${file}: ${problem}`, { command: 'mcp' })
}
