// runCli: one `dsh` command line, from argv to exit status, printing exactly the model-facing text.
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { HarnessError, stderrLogger, type Harness, type ToolListing } from '@dsh/core'
import { createDshHarness } from './harness.js'
import { parseCliArgs, UsageError, type CliInvocation } from './parse-args.js'
import { USAGE } from './usage.js'

/** Where the CLI writes and what it knows of its process. */
export interface CliIo {
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
  /** The process cwd: what `--cwd`, `--config` and `--spill-dir` are relative to. */
  cwd: string
  version: string
}

/** Exit statuses (DESIGN.md's contract). */
export const EXIT = { ok: 0, toolError: 1, usage: 2 } as const

/**
 * Runs one `dsh` command line and returns its exit status; never throws for bad input. Ctrl-C,
 * SIGTERM or SIGHUP cancels the call (the search's process group is killed); they are listened for
 * from the start, so one while plugins load (the rg probe runs) cancels too instead of killing the
 * process outright.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const controller = new AbortController()
  const cancel = (): void => controller.abort()
  // SIGTERM and SIGHUP too: a host or a closed terminal stopping dsh must not orphan rg.
  for (const signal of CANCEL_SIGNALS) process.once(signal, cancel)
  try {
    return await runInvocation(argv, io, controller.signal)
  } finally {
    for (const signal of CANCEL_SIGNALS) process.removeListener(signal, cancel)
  }
}

const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

async function runInvocation(argv: readonly string[], io: CliIo, signal: AbortSignal): Promise<number> {
  let invocation: CliInvocation
  let harness: Harness
  let cwd: string
  try {
    invocation = parseCliArgs(argv)
    if (invocation.command === 'help' || invocation.command === 'version') {
      io.stdout.write(invocation.command === 'help' ? USAGE : `${io.version}\n`)
      return EXIT.ok
    }
    cwd = await directory(path.resolve(io.cwd, invocation.cwd ?? '.'))
    const config = invocation.configFile === undefined ? {} : await readConfig(path.resolve(io.cwd, invocation.configFile))
    harness = await createDshHarness({
      config,
      ...(invocation.spillDir === undefined ? {} : { spillDir: path.resolve(io.cwd, invocation.spillDir) }),
      logger: { warn: (message) => io.stderr.write(`dsh: warning: ${message}\n`), info: stderrLogger.info },
    })
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof HarnessError)) throw error
    io.stderr.write(`dsh: ${error.message}\n${error instanceof UsageError ? 'Run dsh --help for usage.\n' : ''}`)
    return EXIT.usage
  }
  if (invocation.command === 'tools') {
    io.stdout.write(invocation.format === 'json' ? `${JSON.stringify(harness.registry.list(), null, 2)}\n` : formatToolList(harness.registry.list()))
    return EXIT.ok
  }
  const agent = { session: { header: { id: invocation.session ?? 'cli', cwd } } }
  const result = await harness.registry.execute(invocation.command, invocation.toolArgs, { agent, signal })
  if (invocation.format === 'json') {
    const view = harness.registry.present(invocation.command, invocation.toolArgs, result) ?? null
    io.stdout.write(`${JSON.stringify({ isError: result.isError, content: result.content, meta: result.meta ?? null, view })}\n`)
  } else {
    io.stdout.write(`${result.content}\n`)
  }
  return result.isError ? EXIT.toolError : EXIT.ok
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
      const lines = [`${tool.name}${flags === '' ? '' : ` (${flags})`}`, `  ${tool.description}`, `  schema: ${JSON.stringify(tool.inputSchema)}`]
      for (const section of tool.promptSections) lines.push(`  prompt: ${section.text}`)
      return `${lines.join('\n')}\n`
    })
    .join('\n')
}
