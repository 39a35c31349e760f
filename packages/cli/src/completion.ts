// `dsh completion bash|zsh|fish`: a completion script written from the registered tools' shapes, so a
// tool added to the registry completes with no code here.
import type { ToolListing } from '@dsh/core'
import { COMPLETION_SHELLS, type CompletionShell } from './builtin-args.js'
import { COLOR_WHEN } from './color.js'
import { COMMON_OPTIONS, FORMATS, PROFILES } from './command-line.js'
import { flagName, toolShape, type ToolShape } from './tool-shape.js'
import { BUILTIN_COMMANDS, firstSentence, type BuiltinCommand } from './usage.js'

/** What follows a flag: nothing, or a value completed as a directory, a file, one of some words, or not at all. */
export type FlagValue = 'none' | 'dir' | 'file' | 'free' | readonly string[]

/** One flag as a shell completes it. */
export interface CompletionFlag {
  /** As typed: `--include`, `-i`. */
  flag: string
  /** The same option's one-letter spelling, for a shared option that has one (`-0` for `--null`). */
  short?: string
  value: FlagValue
}

/** One command as a shell completes it: its flags, and what its words are (files, some words, or free text). */
export interface CompletionCommand {
  name: string
  summary: string
  flags: CompletionFlag[]
  words: 'files' | 'free' | readonly string[]
}

/** Everything a completion script knows: the commands, then the options every command takes. */
export interface CompletionModel {
  commands: CompletionCommand[]
  options: CompletionFlag[]
}

/** The shared options' values: what each completes to (the rest take a free value or none). */
const OPTION_VALUES: Readonly<Record<string, FlagValue>> = {
  cwd: 'dir',
  'spill-dir': 'dir',
  root: 'dir',
  config: 'file',
  format: FORMATS,
  color: COLOR_WHEN,
  profile: PROFILES,
}

/** What `dsh completion` builds its script from: the registered tools and the built-ins' shapes. */
export interface CompletionSource {
  tools: readonly ToolListing[]
  builtins: Readonly<Record<BuiltinCommand, ToolShape>>
}

/** The commands and options of this registry: each tool's flags from its schema, each built-in's from its shape. */
export function completionModel({ tools, builtins }: CompletionSource): CompletionModel {
  const flags = (shape: ToolShape): CompletionFlag[] =>
    shape.flags.map((param) => ({
      flag: flagName(param),
      value: param.type === 'boolean' ? 'none' : param.type === 'number' ? 'free' : 'file',
    }))
  const commands: CompletionCommand[] = tools.map((tool) => {
    const shape = toolShape(tool)
    return {
      name: tool.name,
      summary: firstSentence(tool.description),
      flags: flags(shape),
      words: shape.positionals.length > 0 ? 'files' : 'free',
    }
  })
  for (const [name, { summary }] of Object.entries(BUILTIN_COMMANDS) as [BuiltinCommand, { summary: string }][]) {
    const words = name === 'completion' ? COMPLETION_SHELLS : 'free'
    commands.push({ name, summary: firstSentence(summary), flags: flags(builtins[name]), words })
  }
  const options: CompletionFlag[] = []
  for (const [name, spec] of Object.entries(COMMON_OPTIONS)) {
    const value = spec.type === 'boolean' ? 'none' : (OPTION_VALUES[name] ?? 'free')
    options.push({ flag: `--${name}`, value, ...('short' in spec ? { short: `-${spec.short}` } : {}) })
  }
  return { commands, options }
}

/** The script for `shell`, which a user's shell sources as the README says. */
export function completionScript(shell: CompletionShell, source: CompletionSource): string {
  const model = completionModel(source)
  return shell === 'bash' ? bashScript(model) : shell === 'zsh' ? zshScript(model) : fishScript(model)
}

/** A POSIX single-quoted word (bash and zsh read it alike). */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}

/** Every spelling of the shared options. */
function optionWords(model: CompletionModel): string[] {
  return model.options.flatMap((option) => (option.short === undefined ? [option.flag] : [option.flag, option.short]))
}

/** Every flag that takes a value, by what its value completes to: shell `case` patterns. */
function valueCases(model: CompletionModel): { pattern: string; value: Exclude<FlagValue, 'none'> }[] {
  const byValue = new Map<string, { flags: Set<string>; value: Exclude<FlagValue, 'none'> }>()
  for (const { flag, value } of [...model.options, ...model.commands.flatMap((command) => command.flags)]) {
    if (value === 'none') continue
    const key = typeof value === 'string' ? value : value.join(' ')
    const entry = byValue.get(key) ?? { flags: new Set<string>(), value }
    entry.flags.add(flag)
    byValue.set(key, entry)
  }
  return [...byValue.values()].map(({ flags, value }) => ({ pattern: [...flags].map(quote).join('|'), value }))
}

function bashScript(model: CompletionModel): string {
  const reply = (words: string) => `COMPREPLY=($(compgen -W ${quote(words)} -- "$cur"))`
  const valued = valueCases(model)
  const values = valued.map(({ pattern, value }) => {
    const then =
      value === 'dir'
        ? 'COMPREPLY=($(compgen -d -- "$cur"))'
        : value === 'file'
          ? 'COMPREPLY=($(compgen -f -- "$cur"))'
          : value === 'free'
            ? 'COMPREPLY=()'
            : reply(value.join(' '))
    return `    ${pattern}) ${then}; return ;;`
  })
  const commands = model.commands.map((command) => {
    const words =
      command.words === 'files'
        ? 'COMPREPLY=($(compgen -f -- "$cur"))'
        : command.words === 'free'
          ? 'COMPREPLY=()'
          : reply(command.words.join(' '))
    return `    ${quote(command.name)}) flags+=${quote(` ${command.flags.map((f) => f.flag).join(' ')}`)}; [[ $cur == -* ]] || { ${words}; return; } ;;`
  })
  return `# bash completion for dsh, written by \`dsh completion bash\` from the registered tools.
# Load it with: eval "$(dsh completion bash)"
_dsh() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} command= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      --) break ;;
      ${valued.map(({ pattern }) => pattern).join('|')}) ((i++)) ;;
      -*) ;;
      *) command=\${COMP_WORDS[i]}; break ;;
    esac
  done
  case $prev in
${values.join('\n')}
  esac
  local flags=${quote(optionWords(model).join(' '))}
  case $command in
    '') [[ $cur == -* ]] || { ${reply(model.commands.map((c) => c.name).join(' '))}; return; } ;;
${commands.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$flags" -- "$cur"))
}
complete -o filenames -F _dsh dsh
`
}

function zshScript(model: CompletionModel): string {
  const valued = valueCases(model)
  const values = valued.map(({ pattern, value }) => {
    const then =
      value === 'dir' ? '_files -/' : value === 'file' ? '_files' : value === 'free' ? ':' : `compadd -- ${value.map(quote).join(' ')}`
    return `    ${pattern}) ${then}; return ;;`
  })
  const described = model.commands.map((c) => quote(`${c.name.replaceAll(':', '\\:')}:${c.summary}`))
  const commands = model.commands.map((command) => {
    const words = command.words === 'files' ? '_files' : command.words === 'free' ? ':' : `compadd -- ${command.words.map(quote).join(' ')}`
    return `    ${quote(command.name)}) flags+=(${command.flags.map((f) => quote(f.flag)).join(' ')}); [[ $cur == -* ]] || { ${words}; return } ;;`
  })
  return `#compdef dsh
# zsh completion for dsh, written by \`dsh completion zsh\` from the registered tools.
# Save it as _dsh in a directory on $fpath, or after compinit: eval "$(dsh completion zsh)"
_dsh() {
  local cur=\${words[CURRENT]} command= i
  for ((i = 2; i < CURRENT; i++)); do
    case \${words[i]} in
      --) break ;;
      ${valued.map(({ pattern }) => pattern).join('|')}) ((i++)) ;;
      -*) ;;
      *) command=\${words[i]}; break ;;
    esac
  done
  case \${words[CURRENT-1]} in
${values.join('\n')}
  esac
  local -a flags=(${optionWords(model).map(quote).join(' ')})
  local -a commands=(${described.join(' ')})
  case $command in
    '') [[ $cur == -* ]] || { _describe command commands; return } ;;
${commands.join('\n')}
  esac
  compadd -- $flags
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then _dsh "$@"; else compdef _dsh dsh; fi
`
}

/** A fish single-quoted word. */
function fishQuote(word: string): string {
  return `'${word.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** A fish `complete` flag option: `-l include` or `-s i`. */
function fishFlag(flag: string): string {
  return flag.startsWith('--') ? `-l ${fishQuote(flag.slice(2))}` : `-s ${fishQuote(flag.slice(1))}`
}

function fishValue(value: FlagValue): string {
  if (value === 'none') return ''
  if (value === 'dir') return " -x -a '(__fish_complete_directories)'"
  if (value === 'file') return ' -r -F'
  if (value === 'free') return ' -x'
  return ` -x -a ${fishQuote(value.join(' '))}`
}

function fishScript(model: CompletionModel): string {
  const lines = [
    '# fish completion for dsh, written by `dsh completion fish` from the registered tools.',
    '# Load it with: dsh completion fish | source',
    'complete -c dsh -e',
    'complete -c dsh -f',
  ]
  for (const command of model.commands) {
    lines.push(`complete -c dsh -n __fish_use_subcommand -a ${fishQuote(command.name)} -d ${fishQuote(command.summary)}`)
  }
  for (const option of model.options) {
    lines.push(
      `complete -c dsh ${fishFlag(option.flag)}${option.short === undefined ? '' : ` ${fishFlag(option.short)}`}${fishValue(option.value)}`,
    )
  }
  for (const command of model.commands) {
    const when = `-n ${fishQuote(`__fish_seen_subcommand_from ${command.name}`)}`
    for (const flag of command.flags) lines.push(`complete -c dsh ${when} ${fishFlag(flag.flag)}${fishValue(flag.value)}`)
    if (command.words === 'files') lines.push(`complete -c dsh ${when} -F`)
    else if (command.words !== 'free') lines.push(`complete -c dsh ${when} -x -a ${fishQuote(command.words.join(' '))}`)
  }
  return `${lines.join('\n')}\n`
}
