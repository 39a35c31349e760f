// runCli: one `dsh` command line, from argv to exit status, printing exactly the model-facing text.
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import {
  HarnessError,
  stderrLogger,
  type Harness,
  type Logger,
  type ToolListing,
  type ToolResult,
  type ToolResultView,
  type WithheldTool,
} from '@dsh/core'
import { BUILTIN_SHAPES, readBuiltinArgs, type BuiltinArgs } from './builtin-args.js'
import { catalogPlugin, readCatalogFile } from './catalog-file.js'
import { EXIT, type CliIo } from './cli-io.js'
import { completionScript } from './completion.js'
import { colorEnabled, paintPage, PLAIN, terminalPaint, type Paint } from './color.js'
import { readCommandLine, UsageError, type CommandLine } from './command-line.js'
import { resultStatus } from './exit-status.js'
import { createDshHarness, type ToolSet } from './harness.js'
import { readSearchCardBundle, renderHtmlPage } from './html.js'
import { linesFormatFor, type LinesFormat } from './lines.js'
import { runIndexCommand } from './index-command.js'
import { runMcpCommand } from './mcp-command.js'
import { nearestName } from './suggest.js'
import { readToolArgs } from './tool-args.js'
import { runToolSearchCommand } from './tool-search-command.js'
import { toolShape, type ToolShape } from './tool-shape.js'
import { BUILTIN_COMMANDS, builtinUsage, globalUsage, toolUsage, type BuiltinCommand } from './usage.js'

/**
 * Runs one `dsh` command line and returns its exit status; never throws for bad input. Ctrl-C,
 * SIGTERM or SIGHUP cancels the call (the search's process group is killed) or stops `dsh mcp`; they
 * are listened for from the start, so one while plugins load (the rg probe runs) cancels too instead
 * of killing the process outright.
 */
/** For the warm server (bin.ts), which takes it from the program. */
export { mayHandBack } from './daemon/route.js'

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const controller = new AbortController()
  const cancel = (): void => controller.abort()
  // SIGTERM and SIGHUP too: a host or a closed terminal stopping dsh must not orphan rg.
  const signals = io.signal === undefined ? CANCEL_SIGNALS : []
  for (const signal of signals) process.once(signal, cancel)
  try {
    return await runInvocation(argv, io, io.signal ?? controller.signal)
  } catch (error) {
    // A config file or a plugin that cannot load: the message says what to fix, usage would not help.
    if (error instanceof HarnessError) {
      io.stderr.write(`dsh: ${error.message}\n`)
      return EXIT.usage
    }
    if (!(error instanceof UsageError)) throw error
    // A typo gets one line naming what was meant; anything else, a pointer to the help.
    if (error.suggestion !== undefined) {
      io.stderr.write(`dsh: ${error.message}; did you mean ${error.suggestion}?\n`)
      return EXIT.usage
    }
    const help = error.command === undefined ? 'dsh --help' : `dsh ${error.command} --help`
    io.stderr.write(`dsh: ${error.message}\nRun ${help} for usage.\n`)
    return EXIT.usage
  } finally {
    for (const signal of signals) process.removeListener(signal, cancel)
  }
}

const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** A loaded session: the harness, the tools its plugins withheld, the directory calls run in, and where warnings go. */
interface Session {
  harness: Harness
  withheld: WithheldTool[]
  cwd: string
  logger: Logger
}

/** The code `--format json` reports for a tool its plugin withheld here (grep without ripgrep). */
const UNAVAILABLE = 'TOOL_UNAVAILABLE'

async function runInvocation(argv: readonly string[], io: CliIo, signal: AbortSignal): Promise<number> {
  const line = readCommandLine(argv)
  if (line.common.version) {
    io.stdout.write(`${io.version}\n`)
    return EXIT.ok
  }
  if (line.command === undefined && !line.common.help) throw new UsageError('no command given')
  const command = line.command
  // A built-in's own arguments are read first: a catalog or upstream servers change which plugins load.
  const builtin =
    command !== undefined && Object.hasOwn(BUILTIN_COMMANDS, command) && !line.common.help
      ? readBuiltinArgs(command as BuiltinCommand, line.argv)
      : undefined
  // A process that serves more than this call keeps the index's watcher (docs/design.md#changes-since-the-build-are-read).
  const warm = io.warm === true || command === 'mcp'
  const session = await loadSession(line, io, await builtinToolSet(builtin, io), warm)
  const tools = session.harness.registry.list()
  if (command === undefined) {
    io.stdout.write(globalUsage(tools, session.withheld))
    return EXIT.ok
  }
  if (line.common.help && Object.hasOwn(BUILTIN_COMMANDS, command)) {
    io.stdout.write(builtinUsage(command as BuiltinCommand))
    return EXIT.ok
  }
  if (builtin !== undefined) return runBuiltin(builtin, line, session, io, signal)
  // `dsh grep` reaches Grep when the claude-code profile names the tools as Claude Code does.
  const tool = tools.find((t) => t.name === command) ?? tools.find((t) => t.name.toLowerCase() === command)
  if (tool === undefined) {
    // A tool its plugin could not register here exists all the same: say why it is missing.
    const withheld = session.withheld.find((w) => w.name === command)
    if (withheld !== undefined) {
      const content = `${withheld.name} is unavailable: ${withheld.reason}`
      return printResult(
        { isError: true, errorCode: UNAVAILABLE, content },
        { view: null, lines: undefined, title: command, paint: PLAIN },
        line,
        io,
      )
    }
    const known = [...tools, ...session.withheld].map((t) => t.name)
    const near = nearestName(command, [...known, ...Object.keys(BUILTIN_COMMANDS)])
    throw new UsageError(`unknown command ${JSON.stringify(command)}`, { suggestion: near })
  }
  if (line.common.help) {
    io.stdout.write(toolUsage(tool))
    return EXIT.ok
  }
  return runTool(tool, line, session, io, signal)
}

async function runTool(tool: ToolListing, line: CommandLine, session: Session, io: CliIo, signal: AbortSignal): Promise<number> {
  const shape = toolShape(tool)
  const args = readToolArgs(tool.name, line.argv, shape)
  const lines = line.common.format === 'lines' ? linesFormatFor(tool.name, line.common.nul) : undefined
  const agent = { session: { header: { id: line.common.session ?? 'cli', cwd: session.cwd } } }
  const result = await session.harness.registry.execute(tool.name, args, { agent, signal })
  const { format } = line.common
  // Text and lines are painted on a terminal; the text from the card view, which names the page's paths and lines.
  const paint = format !== 'json' && format !== 'html' && colorEnabled(line.common.color, io.terminal) ? searchPaint(args) : PLAIN
  const view =
    format === 'json' || format === 'html' || (format === 'text' && paint !== PLAIN)
      ? (session.harness.registry.present(tool.name, args, result) ?? null)
      : null
  const html =
    format === 'html'
      ? {
          title: commandTitle(tool.name, args, shape),
          pattern: typeof args.pattern === 'string' ? args.pattern : undefined,
          bundle: view?.card === 'search' ? await readSearchCardBundle() : undefined,
        }
      : undefined
  const status = printResult(result, { view, lines, title: tool.name, html, paint }, line, io)
  return signal.aborted ? EXIT.interrupted : status
}

/** The terminal's paint for a call: its `pattern` highlighted, case-blind with the claude-code profile's `-i`. */
function searchPaint(args: Record<string, unknown>): Paint {
  return terminalPaint(typeof args.pattern === 'string' ? args.pattern : undefined, args['-i'] === true)
}

/** The call as a person would type it, for a page's title: `dsh grep needle src --include=*.ts`. */
function commandTitle(name: string, args: Record<string, unknown>, shape: ToolShape): string {
  const positional = new Set(shape.positionals.map((p) => p.name))
  const words = Object.entries(args).map(([key, value]) => (positional.has(key) ? String(value) : `--${key}=${String(value)}`))
  return ['dsh', name, ...words].join(' ')
}

/** How a result is printed: its card view (json, html), its lines format, and for html the page's title, pattern and card code. */
interface PrintHow {
  view: ToolResultView | null
  lines: LinesFormat | undefined
  /** The command, for a page that has no `html`. */
  title: string
  html?: { title: string; pattern: string | undefined; bundle: string | undefined } | undefined
  /** How text and lines write paths, line numbers and matches on stdout. */
  paint: Paint
}

/**
 * Prints one result and returns the exit status. JSON keeps stdout for everything. Otherwise stdout
 * carries only results, as rg and gh do: a failure goes to stderr, and in lines the notes too.
 */
function printResult(result: ToolResult, how: PrintHow, line: CommandLine, io: CliIo): number {
  const { format, nul } = line.common
  const { view, lines } = how
  if (format === 'html') {
    const { title, pattern, bundle } = how.html ?? { title: `dsh ${how.title}`, pattern: undefined, bundle: undefined }
    io.stdout.write(renderHtmlPage({ title, pattern, result, view: view ?? undefined, bundle }))
  } else if (format === 'json') {
    const printed = result.isError
      ? { isError: true, errorCode: result.errorCode, content: result.content, meta: null, view }
      : { isError: false, content: result.content, meta: result.meta ?? null, view }
    io.stdout.write(`${JSON.stringify(printed)}\n`)
  } else if (result.isError) {
    io.stderr.write(`${result.content}\n`)
  } else if (lines !== undefined) {
    const { records, notes } = lines.print(result.value, nul, how.paint)
    io.stdout.write(records)
    for (const note of notes) io.stderr.write(`dsh: ${note}\n`)
  } else {
    io.stdout.write(`${paintPage(result.content, view, how.paint)}\n`)
  }
  return resultStatus(result)
}

/** What the built-ins that print print, for the message that refuses them a page. */
const NOT_A_PAGE = {
  tools: 'the tool list',
  'tool-search': "tool_search's matches",
  completion: 'a completion script',
  index: 'an index build',
} as const

async function runBuiltin(args: BuiltinArgs, line: CommandLine, session: Session, io: CliIo, signal: AbortSignal): Promise<number> {
  const agent = { session: { header: { id: line.common.session ?? 'cli', cwd: session.cwd } } }
  if (line.common.format === 'html' && args.command !== 'mcp') {
    throw new UsageError(`--format html shows a tool call, not ${NOT_A_PAGE[args.command]}`, { command: args.command })
  }
  switch (args.command) {
    case 'tools': {
      const tools = session.harness.registry.list()
      const { format, nul } = line.common
      if (format === 'json') io.stdout.write(`${JSON.stringify(tools, null, 2)}\n`)
      else if (format === 'lines') io.stdout.write(tools.map((tool) => `${tool.name}${nul ? '\0' : '\n'}`).join(''))
      else io.stdout.write(formatToolList(tools))
      // Never an empty list: read needs no rg, so dsh always registers it.
      return EXIT.ok
    }
    case 'completion':
      io.stdout.write(completionScript(args.shell, { tools: session.harness.registry.list(), builtins: BUILTIN_SHAPES }))
      return EXIT.ok
    case 'tool-search': {
      const { query, maxResults, explain } = args
      return runToolSearchCommand({ query, maxResults, explain, registry: session.harness.registry, agent, signal }, line.common, io)
    }
    case 'index':
      return runIndexCommand(
        {
          harness: session.harness,
          target: args.target,
          indexDir: args.indexDir === undefined ? undefined : path.resolve(io.cwd, args.indexDir),
          rebuild: args.rebuild,
          cwd: session.cwd,
          signal,
          served: io.served,
        },
        line.common,
        io,
      )
    case 'mcp':
      await runMcpCommand(
        {
          harness: session.harness,
          upstream: args.upstream === undefined ? undefined : path.resolve(io.cwd, args.upstream),
          http: args.http,
          tokenFile: args.tokenFile === undefined ? undefined : path.resolve(io.cwd, args.tokenFile),
          envToken: process.env.DSH_MCP_TOKEN,
          // Without --cwd the client's first root is the session cwd, once it says which.
          cwd: line.common.cwd === undefined ? undefined : session.cwd,
          session: line.common.session ?? 'mcp',
          logger: session.logger,
          signal,
        },
        io,
      )
      return EXIT.ok
  }
}

/**
 * The tools a built-in serves: a catalog's, or dsh's own with tool_search wherever tools wait for it
 * (upstream MCP servers register theirs once connected).
 */
async function builtinToolSet(args: BuiltinArgs | undefined, io: CliIo): Promise<ToolSet> {
  if (args?.command === 'tool-search') {
    if (args.catalog === undefined) return { kind: 'dsh', toolSearch: true }
    return { kind: 'catalog', catalog: catalogPlugin(await readCatalogFile(path.resolve(io.cwd, args.catalog))) }
  }
  return { kind: 'dsh', toolSearch: args?.command === 'mcp' && args.upstream !== undefined }
}

/** Resolves `--cwd`, reads `--config` and loads the plugins; a problem with any of them is a usage error (exit 2). */
async function loadSession(line: CommandLine, io: CliIo, toolSet: ToolSet, warm: boolean): Promise<Session> {
  const logger: Logger = { ...stderrLogger, warn: (message) => io.stderr.write(`dsh: warning: ${message}\n`) }
  const { common } = line
  const cwd = await directory(path.resolve(io.cwd, common.cwd ?? '.'))
  const config = common.configFile === undefined ? {} : await readConfig(path.resolve(io.cwd, common.configFile))
  const harness = await createDshHarness({
    config,
    ...(common.spillDir === undefined ? {} : { spillDir: path.resolve(io.cwd, common.spillDir) }),
    ...(common.profile === undefined ? {} : { profile: common.profile }),
    roots: common.roots.map((root) => path.resolve(io.cwd, root)),
    logger,
    toolSet,
    // Both hold what this machine's default shell and file system answered: another executor may differ.
    ...(io.probeCache === undefined || Object.hasOwn(config, 'bash-local') ? {} : { probeCache: io.probeCache }),
    ...(io.linkScanMemory === undefined || Object.hasOwn(config, 'bash-local') ? {} : { linkScanMemory: io.linkScanMemory }),
    warm,
  })
  // The loader always provides toolAvailability.
  return { harness, withheld: harness.get('toolAvailability')!.withheld(), cwd, logger }
}

async function directory(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => undefined)
  if (info?.isDirectory() !== true) throw new UsageError(`--cwd ${dir} is not a directory`)
  return dir
}

async function readConfig(file: string): Promise<Record<string, unknown>> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`cannot read config ${file}: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`config ${file} must be a JSON object keyed by plugin name`)
  }
  return parsed as Record<string, unknown>
}

/** `dsh tools` as text: each tool with its flags, schema and prompt sections. */
export function formatToolList(tools: readonly ToolListing[]): string {
  if (tools.length === 0) return 'No tools are registered.\n'
  return tools
    .map((tool) => {
      const flags = [tool.isReadOnly && 'read-only', tool.isConcurrencySafe && 'concurrency-safe'].filter(Boolean).join(', ')
      const lines = [
        `${tool.name}${flags === '' ? '' : ` (${flags})`}`,
        `  ${tool.description}`,
        `  schema: ${JSON.stringify(tool.inputSchema)}`,
      ]
      for (const section of tool.promptSections) lines.push(`  prompt: ${section.text}`)
      return `${lines.join('\n')}\n`
    })
    .join('\n')
}
