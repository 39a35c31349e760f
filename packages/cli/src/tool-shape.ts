// A tool's command-line shape, read from its JSON Schema: which properties are positionals, which flags.
import type { ToolListing } from '@dsh/core'

/** How a command-line word becomes a property value. */
export type ParamType = 'string' | 'number' | 'boolean' | 'strings'

/** One schema property as the command line takes it. */
export interface CliParam {
  /** The property name in the tool's schema. */
  name: string
  type: ParamType
  required: boolean
  /** How usage shows the value: `PATTERN`, `N`, or '' for a boolean flag. */
  metavar: string
  description: string
}

/** A command's parameters: positionals in order, then flags (`--name`). */
export interface ToolShape {
  positionals: CliParam[]
  flags: CliParam[]
}

interface PropertySchema {
  type?: unknown
  items?: { type?: unknown }
  description?: unknown
}

/**
 * Required properties are positionals in schema order, and so is an optional `path` after them (the
 * `grep PATTERN [PATH]` shape every search tool shares); every other property is a flag named after
 * it. Every property is also accepted as a flag, so a value that starts with "-" can be given as
 * `--pattern=-foo` as well as after `--`.
 */
export function toolShape(tool: ToolListing): ToolShape {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>
  const required = new Set(Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [])
  const params = Object.entries(properties).map(([name, schema]) => toParam(name, schema, required.has(name)))
  const positional = (param: CliParam) => param.type !== 'boolean' && param.type !== 'strings' && (param.required || param.name === 'path')
  return {
    positionals: [...params.filter((p) => p.required && positional(p)), ...params.filter((p) => !p.required && positional(p))],
    flags: params.filter((p) => !positional(p)),
  }
}

function toParam(name: string, schema: PropertySchema, required: boolean): CliParam {
  const type = paramType(schema)
  const metavar =
    type === 'boolean'
      ? ''
      : type === 'number'
        ? 'N'
        : name
            .replace(/^-+/, '')
            .replace(/[^A-Za-z0-9]+/g, '_')
            .toUpperCase()
  return { name, type, required, metavar, description: typeof schema.description === 'string' ? schema.description : '' }
}

/** Numbers and integers coerce from their text, booleans are bare flags, a string array repeats; anything else is text. */
function paramType(schema: PropertySchema): ParamType {
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'array':
      return schema.items?.type === 'string' ? 'strings' : 'string'
    default:
      return 'string'
  }
}

/** A property's option name: its leading dashes dropped and `_` written `-` (`output_mode` is `output-mode`). */
export function optionKey(param: CliParam): string {
  return param.name.replace(/^-+/, '').replaceAll('_', '-')
}

/** The flag a property is given as: `--include`, `--output-mode`, or `-i` for a one-letter property named `-i`. */
export function flagName(param: CliParam): string {
  const bare = optionKey(param)
  return bare.length === 1 ? `-${bare}` : `--${bare}`
}

/** The one-line synopsis: `grep PATTERN [PATH] [--include INCLUDE]`. */
export function synopsis(command: string, shape: ToolShape): string {
  const words = [command]
  for (const p of shape.positionals) words.push(p.required ? p.metavar : `[${p.metavar}]`)
  for (const p of shape.flags) {
    const flag = `${flagName(p)}${p.metavar === '' ? '' : ` ${p.metavar}`}`
    words.push(p.required ? flag : `[${flag}]`)
  }
  return words.join(' ')
}
