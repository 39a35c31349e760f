import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { BUILTIN_SHAPES } from '../src/builtin-args.js'
import { completionModel, completionScript } from '../src/completion.js'
import { dsh, tempDir } from './io.js'

const tool = (name: string, properties: Record<string, unknown>, required: string[] = []): ToolListing => ({
  name,
  description: `${name} does a thing. Then more.`,
  inputSchema: { type: 'object', properties, required },
  promptSections: [],
  isReadOnly: true,
  isConcurrencySafe: true,
  shouldDefer: false,
  alwaysLoad: false,
  isMcp: false,
  usesWorkspace: true,
})

// A tool no code here knows: a positional, a number, a boolean, a repeated string, a one-letter flag.
const frob = tool(
  'frob',
  {
    target: { type: 'string' },
    level: { type: 'integer' },
    quiet: { type: 'boolean' },
    tag: { type: 'array', items: { type: 'string' } },
    '-x': { type: 'boolean' },
  },
  ['target'],
)
const ping = tool('ping', {})
const source = { tools: [frob, ping], builtins: BUILTIN_SHAPES }

describe('completionModel', () => {
  it("reads each tool's flags and words from its schema, and the built-ins' from their shapes", () => {
    const model = completionModel(source)
    expect(model.commands.map((c) => c.name)).toEqual(['frob', 'ping', 'tools', 'mcp', 'tool-search', 'index', 'completion'])
    expect(model.commands[0]).toEqual({
      name: 'frob',
      summary: 'frob does a thing.',
      flags: [
        { flag: '--level', value: 'free' },
        { flag: '--quiet', value: 'none' },
        { flag: '--tag', value: 'file' },
        { flag: '-x', value: 'none' },
      ],
      words: 'files',
    })
    expect(model.commands[1]).toMatchObject({ name: 'ping', flags: [], words: 'free' })
    expect(model.commands.find((c) => c.name === 'completion')).toMatchObject({ words: ['bash', 'zsh', 'fish'] })
    expect(model.options).toContainEqual({ flag: '--null', short: '-0', value: 'none' })
    expect(model.options).toContainEqual({ flag: '--cwd', value: 'dir' })
    expect(model.options).toContainEqual({ flag: '--session', value: 'free' })
    expect(model.options).toContainEqual({ flag: '--color', value: ['auto', 'always', 'never'] })
  })
})

describe('completionScript', () => {
  /** bash's offers for the words typed after `dsh`, from the script for `source`. */
  const offers = (...words: string[]) => {
    const run = spawnSync(
      'bash',
      [
        '-c',
        'eval "$1"; shift; COMP_WORDS=(dsh "$@"); COMP_CWORD=$#; _dsh; printf "%s\\n" "${COMPREPLY[@]}"',
        'bash',
        completionScript('bash', source),
        ...words,
      ],
      { cwd: tempDir('completion-unit'), encoding: 'utf8' },
    )
    expect(run.stderr).toBe('')
    return run.stdout.split('\n').filter(Boolean).sort()
  }

  it('completes a new tool with no code of its own', () => {
    expect(offers('fr')).toEqual(['frob'])
    expect(offers('frob', 't', '--')).toEqual(expect.arrayContaining(['--level', '--quiet', '--tag', '--format']))
    expect(offers('frob', 't', '-')).toContain('-x')
    expect(offers('frob', 't', '--level', '')).toEqual([])
    expect(offers('ping', 'x')).toEqual([])
  })

  it('writes a zsh and a fish script from the same model', () => {
    const zsh = completionScript('zsh', source)
    expect(zsh).toMatch(/^#compdef dsh\n/)
    expect(zsh).toContain("'frob') flags+=('--level' '--quiet' '--tag' '-x'); [[ $cur == -* ]] || { _files; return } ;;")
    expect(zsh).toContain("'ping') flags+=(); [[ $cur == -* ]] || { :; return } ;;")
    const fish = completionScript('fish', source)
    expect(fish).toContain("complete -c dsh -n __fish_use_subcommand -a 'frob' -d 'frob does a thing.'")
    expect(fish).toContain("complete -c dsh -n '__fish_seen_subcommand_from frob' -s 'x'\n")
    expect(fish).toContain("complete -c dsh -n '__fish_seen_subcommand_from frob' -l 'level' -x\n")
    expect(fish).toContain("complete -c dsh -l 'null' -s '0'\n")
    expect(fish).toContain("complete -c dsh -l 'cwd' -x -a '(__fish_complete_directories)'\n")
  })

  it("quotes a summary's quotes and backslashes for each shell", () => {
    const odd = { ...tool('odd', {}), description: "it's a \\ thing." }
    expect(completionScript('fish', { tools: [odd], builtins: BUILTIN_SHAPES })).toContain("-d 'it\\'s a \\\\ thing.'")
    expect(completionScript('zsh', { tools: [odd], builtins: BUILTIN_SHAPES })).toContain("'odd:it'\\''s a \\ thing.'")
  })
})

describe('dsh completion', () => {
  const cwd = tempDir('completion-cli')

  it('prints the script for the registered tools and exits 0', async () => {
    const result = await dsh(['completion', 'bash'], cwd)
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(result.stdout).toContain("'grep') flags+=' --include'")
    expect(result.stdout.endsWith('complete -o filenames -F _dsh dsh\n')).toBe(true)
  })

  it('refuses a shell it has no script for, and a page format', async () => {
    expect(await dsh(['completion', 'tcsh'], cwd)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dsh: completion takes bash, zsh or fish, not "tcsh"\nRun dsh completion --help for usage.\n',
    })
    expect((await dsh(['completion', 'zsh', '--format', 'html'], cwd)).stderr).toMatch(
      /^dsh: --format html shows a tool call, not a completion script\n/,
    )
  })
})
