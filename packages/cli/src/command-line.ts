// The first reading of a `dsh` command line: the command, and the options every command shares.
import { parseArgs } from 'node:util'
import { COLOR_WHEN, type ColorWhen } from './color.js'
import { nearestOption } from './suggest.js'

/** What a usage error knows besides its message. */
export interface UsageHelp {
  /** The command whose `--help` would have helped, when one was named. */
  command?: string | undefined
  /** The valid name nearest to a mistyped one: the one-line message names it in place of a pointer to `--help`. */
  suggestion?: string | undefined
}

/** A command line that does not make sense; exit status 2. */
export class UsageError extends Error {
  readonly command: string | undefined
  readonly suggestion: string | undefined

  constructor(message: string, { command, suggestion }: UsageHelp = {}) {
    super(message)
    this.command = command
    this.suggestion = suggestion
  }
}

/**
 * The output formats: the model-facing text; one JSON object for programs; lines for scripts, as
 * rg and fd print them (paths, `path:line:text`, a file's raw lines), notes on stderr; or one HTML
 * page that shows a search's card to a person.
 */
export type OutputFormat = 'text' | 'json' | 'lines' | 'html'

/** The `--format` values, in the order usage names them. */
export const FORMATS: readonly string[] = ['text', 'json', 'lines', 'html'] satisfies OutputFormat[]

// The tool surfaces a profile selects (tool-fs-search's and tool-fs's `profile` config).
/** The `--profile` values. */
export const PROFILES: readonly string[] = ['dsh', 'claude-code']

/** The options every command takes, anywhere before `--`. */
export interface CommonOptions {
  cwd?: string
  configFile?: string
  spillDir?: string
  session?: string
  /** `--profile NAME`: the tool surface (`dsh` or `claude-code`), set on every tool plugin that has one. */
  profile?: string
  /** `--root DIR`, repeatable: directories added to the access roots. */
  roots: string[]
  format: OutputFormat
  /** `-0`/`--null`: in lines, a NUL ends each path instead of a newline (or a colon, in grep's records). */
  nul: boolean
  /** `--color WHEN`: colour the text and lines printed on stdout. @default 'auto' */
  color: ColorWhen
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
  profile: { type: 'string' },
  root: { type: 'string', multiple: true },
  format: { type: 'string' },
  color: { type: 'string' },
  // -0 as fd, xargs and find -print0 have it.
  null: { type: 'boolean', short: '0' },
  help: { type: 'boolean', short: 'h' },
  // -V as rg and fd have it: rg users mean -v as invert-match.
  version: { type: 'boolean', short: 'V' },
  // Read by the thin client (daemon/route.ts); runCli only accepts it.
  'no-daemon': { type: 'boolean' },
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
  if (early?.kind === 'option') {
    // A typo of a shared option (`--fromat`) is named as one; anything else may be the command's own.
    const suggestion = nearestOption(early.rawName, Object.keys(COMMON_OPTIONS))
    if (suggestion !== undefined) throw new UsageError(`unknown option ${early.rawName}`, { suggestion })
    if (command !== undefined)
      throw new UsageError(`${early.rawName} must follow the command: dsh ${command} … ${early.rawName}`, { command })
    throw new UsageError(`unknown option ${early.rawName}`)
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
  const text = (name: 'cwd' | 'config' | 'spill-dir' | 'session' | 'format' | 'profile' | 'color'): string | undefined => {
    const value = values[name]
    if (value === true) throw new UsageError(`Option '--${name} <value>' argument missing`)
    return value as string | undefined
  }
  // Without strict parsing a bare `--root` is `true`, and a repeated one an array of whatever came.
  const roots = [values.root ?? []].flat()
  if (roots.some((root) => typeof root !== 'string')) throw new UsageError("Option '--root <value>' argument missing")
  const given = text('format')
  if (given !== undefined && !FORMATS.includes(given)) {
    throw new UsageError(`--format must be text, json, lines or html, not ${JSON.stringify(given)}`)
  }
  const nul = values.null === true
  // -0 alone asks for lines, as it does of fd; beside another format it means nothing.
  if (nul && given !== undefined && given !== 'lines') throw new UsageError(`-0 (--null) goes with --format lines, not ${given}`)
  const format = (given ?? (nul ? 'lines' : 'text')) as OutputFormat
  const [cwd, configFile, spillDir, session, profile] = [text('cwd'), text('config'), text('spill-dir'), text('session'), text('profile')]
  if (profile !== undefined && !PROFILES.includes(profile))
    throw new UsageError(`--profile must be dsh or claude-code, not ${JSON.stringify(profile)}`)
  const color = text('color') ?? 'auto'
  if (!(COLOR_WHEN as readonly string[]).includes(color))
    throw new UsageError(`--color must be auto, always or never, not ${JSON.stringify(color)}`)
  return {
    format,
    nul,
    color: color as ColorWhen,
    roots: roots as string[],
    help: false,
    version: false,
    ...(cwd === undefined ? {} : { cwd }),
    ...(configFile === undefined ? {} : { configFile }),
    ...(spillDir === undefined ? {} : { spillDir }),
    ...(session === undefined ? {} : { session }),
    ...(profile === undefined ? {} : { profile }),
  }
}
