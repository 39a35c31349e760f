// Parsing `dsh` command lines; a bad one is a UsageError (exit status 2).
import { parseArgs } from 'node:util'

/** A command line that parsed: which command, its tool arguments, and the common options. */
export interface CliInvocation {
  command: 'grep' | 'glob' | 'tools' | 'help' | 'version'
  toolArgs: Record<string, string>
  cwd?: string
  configFile?: string
  spillDir?: string
  session?: string
  format: 'text' | 'json'
}

/** A command line that does not make sense; exit status 2. */
export class UsageError extends Error {}

const OPTIONS = {
  cwd: { type: 'string' },
  config: { type: 'string' },
  'spill-dir': { type: 'string' },
  session: { type: 'string' },
  format: { type: 'string' },
  include: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

/** Parses argv (without node and the script); `--` ends options, so a pattern may start with "-". */
export function parseCliArgs(argv: readonly string[]): CliInvocation {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values, positionals } = parsed
  const format = values.format ?? 'text'
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not ${JSON.stringify(format)}`)
  const common = {
    format,
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    ...(values.config === undefined ? {} : { configFile: values.config }),
    ...(values['spill-dir'] === undefined ? {} : { spillDir: values['spill-dir'] }),
    ...(values.session === undefined ? {} : { session: values.session }),
  } as const
  if (values.help === true) return { command: 'help', toolArgs: {}, ...common }
  if (values.version === true) return { command: 'version', toolArgs: {}, ...common }
  const [command, ...rest] = positionals
  switch (command) {
    case 'grep':
    case 'glob': {
      if (values.include !== undefined && command === 'glob') throw new UsageError('--include belongs to grep; glob takes PATTERN [PATH]')
      if (rest.length < 1 || rest.length > 2) throw new UsageError(`${command} takes PATTERN [PATH]`)
      const toolArgs: Record<string, string> = { pattern: rest[0]! }
      if (rest[1] !== undefined) toolArgs.path = rest[1]
      if (values.include !== undefined) toolArgs.include = values.include
      return { command, toolArgs, ...common }
    }
    case 'tools':
      if (rest.length > 0 || values.include !== undefined) throw new UsageError('tools takes no arguments')
      return { command, toolArgs: {}, ...common }
    case undefined:
      throw new UsageError('no command given')
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  }
}
