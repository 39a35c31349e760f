// The second reading of a command line: a tool's arguments, typed by its schema.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { COMMON_OPTIONS, UsageError } from './command-line.js'
import { nearestOption } from './suggest.js'
import { flagName, optionKey, synopsis, type CliParam, type ToolShape } from './tool-shape.js'

type OptionSpec = NonNullable<ParseArgsConfig['options']>[string]

// A decimal number as a person types it; `1e3`, `0x10` and `Infinity` are not offsets or limits.
const DECIMAL = /^[+-]?\d+(\.\d+)?$/

/**
 * The tool arguments in argv (which starts with the command): positionals in the shape's order, then
 * flags. Values stay as typed, except numbers; the registry's schema judges them, so a value the tool
 * rejects is the tool's error, while a word that is not even a number is a usage error here.
 */
export function readToolArgs(command: string, argv: readonly string[], shape: ToolShape): Record<string, unknown> {
  const options = { ...toolOptions(shape), ...COMMON_OPTIONS }
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw unknownOption(command, argv, options)
    throw new UsageError((error as Error).message, { command })
  }
  const given = (param: CliParam) => (optionKey(param) in COMMON_OPTIONS ? undefined : parsed.values[optionKey(param)])
  // Words fill the positionals not already given as flags, in order.
  const open = shape.positionals.filter((param) => given(param) === undefined)
  const words = parsed.positionals.slice(1)
  if (words.length > open.length || open.slice(words.length).some((param) => param.required)) {
    const expected = synopsis(command, { positionals: open, flags: [] }).slice(command.length + 1)
    const takes = shape.positionals.length === 0 ? 'no arguments' : expected === '' ? 'no more words' : expected
    throw new UsageError(`${command} takes ${takes}`, { command })
  }
  const args: Record<string, unknown> = {}
  for (const param of [...shape.positionals, ...shape.flags]) {
    const value = given(param) ?? words[open.indexOf(param)]
    if (value !== undefined) args[param.name] = convert(command, param, value)
  }
  return args
}

/** The first option the command does not take, named with the valid one nearest to it when there is one. */
function unknownOption(command: string, argv: readonly string[], options: Record<string, OptionSpec>): UsageError {
  const { tokens } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true })
  const unknown = tokens.find((token) => token.kind === 'option' && !(token.name in options))
  // Strict parsing failed on an unknown option, so a lenient one finds it.
  const rawName = (unknown as { rawName: string }).rawName
  return new UsageError(`unknown option ${rawName}`, { command, suggestion: nearestOption(rawName, Object.keys(options)) })
}

/** Each parameter as a `util.parseArgs` option keyed by its bare name; one-letter names are short flags too. */
function toolOptions(shape: ToolShape): Record<string, OptionSpec> {
  const options: Record<string, OptionSpec> = {}
  for (const param of [...shape.positionals, ...shape.flags]) {
    const key = optionKey(param)
    // A shared option keeps its meaning; a tool parameter of that name is reached only as a word.
    if (key in COMMON_OPTIONS) continue
    const short = key.length === 1 && !['h', 'v'].includes(key) ? { short: key } : {}
    options[key] =
      param.type === 'boolean' ? { type: 'boolean', ...short } : { type: 'string', multiple: param.type === 'strings', ...short }
  }
  return options
}

function convert(command: string, param: CliParam, value: string | boolean | string[]): unknown {
  if (param.type !== 'number') return value
  const text = value as string
  if (!DECIMAL.test(text)) throw new UsageError(`${flagName(param)} must be a number, not ${JSON.stringify(text)}`, { command })
  return Number(text)
}
