// dsh(1): the man page, written at build from the registered tools, as `--help` and the completions are.
import type { ToolListing } from '@dsh/core'
import { flagName, synopsis, toolShape, type ToolShape } from './tool-shape.js'
import { BUILTIN_COMMANDS, OPTIONS, type BuiltinCommand } from './usage.js'

/** What the page documents: the registered tools, the built-ins' shapes, and the version it is for. */
export interface ManPageSource {
  tools: readonly ToolListing[]
  builtins: Readonly<Record<BuiltinCommand, ToolShape>>
  version: string
}

/**
 * Text as roff prints it: a backslash and a hyphen written as escapes, any character but printable
 * ASCII, tab and newline as its code point (groff reads its input as Latin-1 unless told), a line
 * never read as a request.
 */
export function roff(text: string): string {
  return text
    .replaceAll('\\', '\\e')
    .replaceAll('-', '\\-')
    .replace(/[^\t\n -~]/gu, (char) => `\\[u${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n')
}

/** One command's entry: its synopsis in bold, what it does, and each parameter its schema describes. */
function commandEntry(usage: string, shape: ToolShape, text: string): string {
  const params = [
    ...shape.positionals.map((p) => [p.metavar, p] as const),
    ...shape.flags.map((p) => [`${flagName(p)}${p.metavar === '' ? '' : ` ${p.metavar}`}`, p] as const),
  ].filter(([, p]) => p.description !== '')
  const described = params.map(([left, p]) => `.TP\n.B ${roff(left)}\n${roff(`${p.required ? '' : '(optional) '}${p.description}`)}`)
  return `.TP\n.B dsh ${roff(usage)}\n${roff(text)}${described.length === 0 ? '' : `\n.RS\n${described.join('\n')}\n.RE`}`
}

/** The page, in the man(7) macros. */
export function manPage({ tools, builtins, version }: ManPageSource): string {
  const commands = [
    ...tools.map((tool) => {
      const shape = toolShape(tool)
      return commandEntry(synopsis(tool.name, shape), shape, tool.description)
    }),
    // A built-in's synopsis is its usage line (`completion bash|zsh|fish`), which says more than its shape.
    ...(Object.keys(BUILTIN_COMMANDS) as BuiltinCommand[]).map((name) =>
      commandEntry(BUILTIN_COMMANDS[name].synopsis, builtins[name], `${BUILTIN_COMMANDS[name].summary}.`),
    ),
  ]
  const [, ...options] = OPTIONS.split('\n')
  return `.TH DSH 1 "" "dsh ${roff(version)}" "User Commands"
.SH NAME
dsh \\- workspace search for AI agents: ripgrep\\-backed glob, grep and read, bounded and honest
.SH SYNOPSIS
.B dsh
.I COMMAND
.RI [ ARGUMENTS ]
.RI [ OPTIONS ]
.br
.B dsh
.RB [ \\-\\-help | \\-\\-version ]
.SH DESCRIPTION
dsh runs a harness's search tools from a shell and prints exactly the text a model would see, or
lines for scripts, JSON for programs, or a page that shows the result; dsh mcp serves the same tools
over the Model Context Protocol. Each registered tool is a command: its required parameters and an
optional path are words, every other parameter a flag.
.SH COMMANDS
${commands.join('\n')}
.SH OPTIONS
Any command takes these, anywhere before \\-\\-. A value that starts with \\- goes after \\-\\- or as
\\-\\-NAME=VALUE.
.PP
.nf
${roff(options.join('\n'))}
.fi
.SH EXIT STATUS
As rg's:
.TP
.B 0
something matched or was listed;
.TP
.B 1
nothing did;
.TP
.B 2
an error: the tool's (printed on stderr, or as the JSON object), a usage error, or a search that
found nothing but could not read everything;
.TP
.B 130
interrupted (SIGINT, SIGTERM, SIGHUP).
.SH ENVIRONMENT
.TP
.B NO_COLOR
when set and not empty, \\-\\-color=auto prints no colour.
.TP
.B TERM
dumb: \\-\\-color=auto prints no colour.
.SH SEE ALSO
.BR rg (1),
.BR fd (1)
`
}
