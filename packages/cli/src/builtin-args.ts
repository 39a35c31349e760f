// The built-in commands' own arguments, read before the harness loads: some of them choose its plugins.
import { readToolArgs } from './tool-args.js'
import type { CliParam } from './tool-shape.js'
import type { BuiltinCommand } from './usage.js'

/** A built-in command and its arguments. */
export type BuiltinArgs =
  | { command: 'tools' }
  | { command: 'mcp'; upstream: string | undefined; http: string | undefined; tokenFile: string | undefined }
  | { command: 'tool-search'; query: string; maxResults: number | undefined; catalog: string | undefined; explain: boolean }

const param = (name: string, type: CliParam['type'], metavar: string, required = false): CliParam => ({
  name,
  type,
  required,
  metavar,
  description: '',
})

/** Reads a built-in's words and flags; a problem is a usage error, as for a tool. */
export function readBuiltinArgs(command: BuiltinCommand, argv: readonly string[]): BuiltinArgs {
  switch (command) {
    case 'tools':
      readToolArgs(command, argv, { positionals: [], flags: [] })
      return { command }
    case 'mcp': {
      const flags = [param('upstream', 'string', 'FILE'), param('http', 'string', 'HOST:PORT'), param('token-file', 'string', 'FILE')]
      const args = readToolArgs(command, argv, { positionals: [], flags })
      return {
        command,
        upstream: args.upstream as string | undefined,
        http: args.http as string | undefined,
        tokenFile: args['token-file'] as string | undefined,
      }
    }
    case 'tool-search': {
      const args = readToolArgs(command, argv, {
        positionals: [param('query', 'string', 'QUERY', true)],
        flags: [param('max-results', 'number', 'N'), param('catalog', 'string', 'FILE'), param('explain', 'boolean', '')],
      })
      return {
        command,
        query: args.query as string,
        maxResults: args['max-results'] as number | undefined,
        catalog: args.catalog as string | undefined,
        explain: args.explain === true,
      }
    }
  }
}
