// The built-in commands' own arguments, read before the harness loads: some of them choose its plugins.
import { readToolArgs } from './tool-args.js'
import { UsageError } from './command-line.js'
import type { CliParam, ToolShape } from './tool-shape.js'
import type { BuiltinCommand } from './usage.js'

/** A built-in command and its arguments. */
export type BuiltinArgs =
  | { command: 'tools' }
  | { command: 'mcp'; upstream: string | undefined; http: string | undefined; tokenFile: string | undefined }
  | { command: 'tool-search'; query: string; maxResults: number | undefined; catalog: string | undefined; explain: boolean }
  | { command: 'completion'; shell: CompletionShell }
  | { command: 'index'; target: string | undefined; indexDir: string | undefined; rebuild: boolean }

/** The shells `dsh completion` writes a script for. */
export type CompletionShell = 'bash' | 'zsh' | 'fish'

/** The `dsh completion` shells, in the order usage names them. */
export const COMPLETION_SHELLS: readonly CompletionShell[] = ['bash', 'zsh', 'fish']

const param = (name: string, type: CliParam['type'], metavar: string, required = false): CliParam => ({
  name,
  type,
  required,
  metavar,
  description: '',
})

/** Each built-in's words and flags, as a tool's come from its schema: what it reads, completes and documents. */
export const BUILTIN_SHAPES: Readonly<Record<BuiltinCommand, ToolShape>> = {
  tools: { positionals: [], flags: [] },
  mcp: {
    positionals: [],
    flags: [param('upstream', 'string', 'FILE'), param('http', 'string', 'HOST:PORT'), param('token-file', 'string', 'FILE')],
  },
  'tool-search': {
    positionals: [param('query', 'string', 'QUERY', true)],
    flags: [param('max-results', 'number', 'N'), param('catalog', 'string', 'FILE'), param('explain', 'boolean', '')],
  },
  completion: { positionals: [param('shell', 'string', 'SHELL', true)], flags: [] },
  index: { positionals: [param('path', 'string', 'PATH')], flags: [param('index-dir', 'string', 'DIR'), param('rebuild', 'boolean', '')] },
}

/** Reads a built-in's words and flags; a problem is a usage error, as for a tool. */
export function readBuiltinArgs(command: BuiltinCommand, argv: readonly string[]): BuiltinArgs {
  const args = readToolArgs(command, argv, BUILTIN_SHAPES[command])
  switch (command) {
    case 'tools':
      return { command }
    case 'mcp':
      return {
        command,
        upstream: args.upstream as string | undefined,
        http: args.http as string | undefined,
        tokenFile: args['token-file'] as string | undefined,
      }
    case 'completion': {
      const shell = args.shell as string
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell))
        throw new UsageError(`completion takes bash, zsh or fish, not ${JSON.stringify(shell)}`, { command })
      return { command, shell: shell as CompletionShell }
    }
    case 'index':
      return {
        command,
        target: args.path as string | undefined,
        indexDir: args['index-dir'] as string | undefined,
        rebuild: args.rebuild === true,
      }
    case 'tool-search': {
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
