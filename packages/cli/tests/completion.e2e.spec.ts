// `dsh completion bash|zsh|fish`: the scripts the real command prints, run in the real shells.
import { spawnSync } from 'node:child_process'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { budgetMs, tempDir } from './io.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(repo, 'node_modules', '.bin', 'dsh')
const dir = tempDir('completion')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The script `dsh completion SHELL [ARGS]` prints, saved to a file a shell sources. */
function script(shell: string, ...args: string[]): string {
  const run = spawnSync(bin, ['completion', shell, ...args], { encoding: 'utf8', timeout: budgetMs(15_000) })
  expect({ code: run.status, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
  const file = join(dir, `dsh-${shell}${args.join('')}`)
  writeFileSync(file, run.stdout)
  return file
}

function shell(command: string, args: string[]): string {
  expect(existsSync(`/usr/bin/${command}`) || existsSync(`/bin/${command}`), `install ${command}, as .ci/run does`).toBe(true)
  const run = spawnSync(command, args, { cwd: dir, encoding: 'utf8', timeout: budgetMs(15_000) })
  expect(run.stderr).toBe('')
  return run.stdout
}

let bash: string, zsh: string, fish: string
beforeAll(() => {
  writeFileSync(join(dir, 'notes.txt'), '')
  bash = script('bash')
  zsh = script('zsh')
  fish = script('fish')
})

/** What bash's completion offers for the words typed so far (the last one being completed). */
function bashOffers(file: string, ...words: string[]): string[] {
  const out = shell('bash', [
    '-c',
    'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _dsh; printf "%s\\n" "${COMPREPLY[@]}"',
    'bash',
    file,
    'dsh',
    ...words,
  ])
  return out.split('\n').filter(Boolean).sort()
}

/** What zsh's completion function adds, with zsh's completion builtins standing in as recorders. */
function zshOffers(...words: string[]): string[] {
  const stubs =
    'compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }; _files() { print -- "<files$*>"; }; ' +
    '_describe() { print -l -- ${(P)2%%:*}; }'
  const out = shell('zsh', ['-c', `${stubs}; source "$1"; shift; words=(dsh "$@"); CURRENT=$#words; _dsh`, 'zsh', zsh, ...words])
  return out.split('\n').filter(Boolean).sort()
}

/** What fish completes for a command line, by `complete -C`. */
function fishOffers(file: string, line: string): string[] {
  return shell('fish', ['-c', 'source $argv[1]; complete -C $argv[2]', file, line])
    .split('\n')
    .filter(Boolean)
    .map((entry) => entry.split('\t')[0]!)
    .sort()
}

describe('dsh completion', () => {
  it('bash completes commands, their flags, the values of shared options, shells and files', () => {
    expect(bashOffers(bash, 'gr')).toEqual(['grep'])
    expect(bashOffers(bash, '')).toEqual(['completion', 'glob', 'grep', 'index', 'mcp', 'read', 'tool-search', 'tools'])
    expect(bashOffers(bash, 'grep', '--inc')).toEqual(['--include'])
    expect(bashOffers(bash, 'read', '--l')).toEqual(['--limit'])
    expect(bashOffers(bash, '--format', '')).toEqual(['html', 'json', 'lines', 'text'])
    expect(bashOffers(bash, 'grep', 'x', '--color', 'a')).toEqual(['always', 'auto'])
    expect(bashOffers(bash, '--cwd', '/tmp', 'gl')).toEqual(['glob'])
    expect(bashOffers(bash, 'completion', '')).toEqual(['bash', 'fish', 'zsh'])
    expect(bashOffers(bash, 'grep', 'needle', 'no')).toEqual(['notes.txt'])
    expect(bashOffers(bash, 'tool-search', 'no')).toEqual([])
  })

  it('zsh completes the same from its script', () => {
    expect(zshOffers('')).toEqual(['completion', 'glob', 'grep', 'index', 'mcp', 'read', 'tool-search', 'tools'])
    expect(zshOffers('grep', '-')).toContain('--include')
    expect(zshOffers('--format', '')).toEqual(['html', 'json', 'lines', 'text'])
    expect(zshOffers('--cwd', '')).toEqual(['<files-/>'])
    expect(zshOffers('grep', 'needle', '')).toEqual(['<files>'])
    expect(zshOffers('completion', '')).toEqual(['bash', 'fish', 'zsh'])
  })

  it('fish completes the same from its script', () => {
    expect(fishOffers(fish, 'dsh gr')).toEqual(['grep'])
    expect(fishOffers(fish, 'dsh grep --inc')).toEqual(['--include'])
    expect(fishOffers(fish, 'dsh --color ')).toEqual(['always', 'auto', 'never'])
    expect(fishOffers(fish, 'dsh completion ')).toEqual(['bash', 'fish', 'zsh'])
    expect(fishOffers(fish, 'dsh read no')).toEqual(['notes.txt'])
  })

  it("follows the registry: the claude-code profile's tools complete with their own flags", () => {
    const claude = script('bash', '--profile', 'claude-code')
    expect(bashOffers(claude, 'G')).toEqual(['Glob', 'Grep'])
    expect(bashOffers(claude, 'Grep', 'x', '--output')).toEqual(['--output-mode'])
    expect(bashOffers(claude, 'Grep', 'x', '-i')).toEqual(['-i'])
    expect(fishOffers(script('fish', '--profile', 'claude-code'), 'dsh Grep --output')).toEqual(['--output-mode'])
  })

  it('refuses a shell it has no script for, as a usage error', () => {
    const run = spawnSync(bin, ['completion', 'tcsh'], { encoding: 'utf8', timeout: budgetMs(15_000) })
    expect({ code: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'dsh: completion takes bash, zsh or fish, not "tcsh"\nRun dsh completion --help for usage.\n',
    })
  })
})
