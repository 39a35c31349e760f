// What `dsh --help` and `dsh COMMAND --help` print, generated from the registered tools.
import type { ToolListing, WithheldTool } from '@dsh/core'
import { flagName, synopsis, toolShape } from './tool-shape.js'

/** The commands that are not tools, with their synopsis and what they do. */
export const BUILTIN_COMMANDS = {
  tools: { synopsis: 'tools', summary: 'list the tools, their JSON schemas and prompt sections' },
  mcp: {
    synopsis: 'mcp [--upstream FILE] [--http HOST:PORT]',
    summary:
      'serve the tools over the Model Context Protocol on stdio (for Claude Code, Cursor, VS Code, …); --upstream FILE also fronts the MCP servers an mcpServers file lists, their tools deferred until tool_search loads them; --http serves Streamable HTTP at http://HOST:PORT/mcp instead (PORT 0: any free port), each request carrying the bearer token that --token-file FILE or $DSH_MCP_TOKEN holds (required unless HOST is loopback)',
  },
  'tool-search': {
    synopsis: 'tool-search QUERY [--catalog FILE]',
    summary:
      "rank deferred tools for QUERY as tool_search does (--max-results N, default 5; --explain: the terms that earned each score, with --format json as each match's terms); FILE is a JSON array of {name, description, searchHint?, isMcp?, shouldDefer?, alwaysLoad?}",
  },
  index: {
    synopsis: 'index [PATH] [--index-dir DIR]',
    summary:
      'build the content index of the tree at PATH (default the working directory), which grep then uses by itself to read only the files that can match, with the same answer; kept private under $XDG_CACHE_HOME/dsh/index (or DIR); run again, it keys only what changed since the build (files changed since are always read; --rebuild builds it whole)',
  },
  completion: {
    synopsis: 'completion bash|zsh|fish',
    summary:
      'print the shell completion script for the registered tools: eval "$(dsh completion bash)", the zsh script as _dsh in $fpath (or eval it after compinit), dsh completion fish | source',
  },
} as const

/** A built-in command's name. */
export type BuiltinCommand = keyof typeof BUILTIN_COMMANDS

/** The shared options, as `--help` and the man page print them. */
export const OPTIONS = `Options (any command, anywhere before "--"):
  --cwd DIR          the session's working directory (default: the current directory)
  --config FILE      JSON config keyed by plugin name, e.g. {"tool-fs-search": {"grepMaxMatches": 10}}
  --spill-dir DIR    where capped results are saved in full (spill-local's root)
  --session ID       the session id that owns spilled results (default: cli; mcp: mcp)
  --profile NAME     the tool surface: dsh (glob, grep, read) or claude-code (Glob, Grep with
                     output modes, context, -i, type and paging, Read); dsh grep reaches Grep
  --root DIR         a directory the tools may also reach (repeatable); by default only the session's
                     working directory and the spill store are reachable
  --format FORMAT    text: the model-facing text; json: {isError, errorCode?, content, meta, view};
                     lines: for scripts, every path (glob), path:line:text (grep) or raw line (read), notes on stderr;
                     html: one self-contained page showing the result (grep and glob as a search card)
  --color WHEN       auto (on a terminal, unless NO_COLOR is set), always or never: colour paths,
                     line numbers and matches in text and lines, as rg does
  -0, --null         with lines: end each path with NUL (grep: NUL after the path); alone, it selects lines
  --no-daemon        run in this process, not in the warm server (as DSH_NO_DAEMON=1 does)
  -h, --help         this text; dsh COMMAND --help describes one command
  -V, --version      the version`

const FOOTER = `A value that starts with "-" goes after "--" (dsh grep -- -foo) or as --NAME=VALUE (--pattern=-foo).
A tool's error goes to stderr (with json, to stdout as the object).
Exit status, as rg's: 0 something matched or was listed, 1 nothing did, 2 an error (the tool's or a
usage error, or a search that found nothing but could not read everything), 130 interrupted.`

/**
 * `dsh --help`: every registered tool as a command, the tools withheld here (`dsh NAME` says why), then
 * the built-ins, the options and the exit statuses.
 */
export function globalUsage(tools: readonly ToolListing[], withheld: readonly WithheldTool[] = []): string {
  const rows: [string, string][] = tools.map((tool) => [synopsis(tool.name, toolShape(tool)), firstSentence(tool.description)])
  for (const { name } of withheld) rows.push([name, `unavailable here; dsh ${name} says why`])
  for (const command of Object.values(BUILTIN_COMMANDS)) rows.push([command.synopsis, command.summary])
  const width = Math.min(48, Math.max(...rows.map(([left]) => left.length)))
  const lines = rows.map(([left, right]) => `  dsh ${left.padEnd(width)}  ${right}`)
  const none = tools.length === 0 ? ['  (no tools are registered: see the warnings above)'] : []
  return `dsh — workspace search for AI agents: ripgrep-backed glob, grep and read, bounded and honest.

Usage:
${[...none, ...lines].join('\n')}
  dsh --help | --version

${OPTIONS}

${FOOTER}
`
}

/** `dsh COMMAND --help` for a tool: its synopsis, its description, and each parameter. */
export function toolUsage(tool: ToolListing): string {
  const shape = toolShape(tool)
  const params = [
    ...shape.positionals.map((p) => [p.metavar, p] as const),
    ...shape.flags.map((p) => [`${flagName(p)}${p.metavar === '' ? '' : ` ${p.metavar}`}`, p] as const),
  ]
  const width = Math.max(...params.map(([left]) => left.length), 0)
  const described = params.map(([left, p]) => `  ${left.padEnd(width)}  ${p.required ? '' : '(optional) '}${p.description}`.trimEnd())
  return `Usage: dsh ${synopsis(tool.name, shape)}

${tool.description}
${described.length === 0 ? '' : `\n${described.join('\n')}\n`}
${OPTIONS}

${FOOTER}
`
}

/** `dsh tools --help` or `dsh mcp --help`. */
export function builtinUsage(command: BuiltinCommand): string {
  return `Usage: dsh ${BUILTIN_COMMANDS[command].synopsis}

${BUILTIN_COMMANDS[command].summary}.

${OPTIONS}
`
}

/** The first sentence of a description, for the one-line command list. */
export function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/)
  return end === -1 ? text : text.slice(0, end + 1)
}
