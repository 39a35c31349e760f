// The first reading of a `dsh` command line: the command, and the options every command shares.
import { parseArgs } from 'node:util'

/** A command line that does not make sense; exit status 2. */
export class UsageError extends Error {
  /** The command whose `--help` would have helped, when one was named. */
  readonly command: string | undefined

  constructor(message: string, command?: string) {
    super(message)
    this.command = command
  }
}

/** The output formats: the model-facing text, or one JSON object for programs. */
export type OutputFormat = 'text' | 'json'

/** The options every command takes, anywhere before `--`. */
export interface CommonOptions {
  cwd?: string
  configFile?: string
  spillDir?: string
  session?: string
  /** `--root DIR`, repeatable: directories added to the access roots. */
  roots: string[]
  format: OutputFormat
  help: boolean
  version: boolean
}

/** What the first reading found: the command (the first positional), the shared options, and argv whole. */
export interface CommandLine {
  command: string | undefined
  common: CommonOptions
  argv: readonly string[]
}

/** The shared options in `util.parseArgs` form; a command's own options are added to these. */
export const COMMON_OPTIONS = {
  cwd: { type: 'string' },
  config: { type: 'string' },
  'spill-dir': { type: 'string' },
  session: { type: 'string' },
  root: { type: 'string', multiple: true },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  // -V as rg and fd have it: rg users mean -v as invert-match.
  version: { type: 'boolean', short: 'V' },
} as const

/**
 * Finds the command and the shared options. A command's own options cannot be known before the tools
 * are loaded (they come from its schema), so they must follow the command: one before it is an error.
 */
export function readCommandLine(argv: readonly string[]): CommandLine {
  const { tokens } = parseArgs({ args: [...argv], options: COMMON_OPTIONS, allowPositionals: true, strict: false, tokens: true })
  const first = tokens.find((token) => token.kind === 'positional')
  const command = first?.kind === 'positional' ? first.value : undefined
  const early = tokens.find(
    (token) => token.kind === 'option' && !(token.name in COMMON_OPTIONS) && (first === undefined || token.index < first.index),
  )
  if (early?.kind === 'option' && command !== undefined) {
    throw new UsageError(`${early.rawName} must follow the command: dsh ${command} … ${early.rawName}`, command)
  }
  // Only a flag written alone counts: `-xv` or `-f/proc/self/environ` is a group of short options
  // (for the command to reject), not a request for the version or the help.
  const alone = (name: string) =>
    tokens.some((token) => token.kind === 'option' && token.name === name && argv[token.index] === token.rawName)
  return { command, common: { ...commonOptions(argv), help: alone('help'), version: alone('version') }, argv }
}

/** The shared options' values; a command's own options are left to the second reading. */
function commonOptions(argv: readonly string[]): CommonOptions {
  const { values } = parseArgs({ args: [...argv], options: COMMON_OPTIONS, allowPositionals: true, strict: false })
  const text = (name: 'cwd' | 'config' | 'spill-dir' | 'session' | 'format'): string | undefined => {
    const value = values[name]
    if (value === true) throw new UsageError(`Option '--${name} <value>' argument missing`)
    return value as string | undefined
  }
  // Without strict parsing a bare `--root` is `true`, and a repeated one an array of whatever came.
  const roots = [values.root ?? []].flat()
  if (roots.some((root) => typeof root !== 'string')) throw new UsageError("Option '--root <value>' argument missing")
  const format = text('format') ?? 'text'
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not ${JSON.stringify(format)}`)
  const [cwd, configFile, spillDir, session] = [text('cwd'), text('config'), text('spill-dir'), text('session')]
  return {
    format,
    roots: roots as string[],
    help: false,
    version: false,
    ...(cwd === undefined ? {} : { cwd }),
    ...(configFile === undefined ? {} : { configFile }),
    ...(spillDir === undefined ? {} : { spillDir }),
    ...(session === undefined ? {} : { session }),
  }
}
