import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { rgPath } from '@vscode/ripgrep'
import { describe, expect, it } from 'vitest'
import { rgArgv, rgCommand, rgVersionCommand, type RgCall } from '../../src/engine/rg-command.js'
import { scratchDirs, writeTree } from '../real-harness.js'

// Values a model may send, each of which rg would read as a flag if it stood as its own word.
const FLAG_LIKE = ['-e', '--pre=touch', '--files', '-rf', '--', '-']

describe('rgArgv: no value becomes a flag (docs/design.md#no-value-becomes-a-flag)', () => {
  it.each<[string, RgCall & { paths?: readonly string[] }, string[]]>([
    ['flags only', { rg: '/opt/rg', flags: ['--type-list'] }, ['/opt/rg', '--no-config', '--type-list']],
    ['no flags at all', { rg: 'rg' }, ['rg', '--no-config']],
    ['a pattern', { rg: 'rg', flags: ['--count'], pattern: 'x' }, ['rg', '--no-config', '--count', '-e', 'x']],
    ...FLAG_LIKE.map((value): [string, RgCall & { paths?: readonly string[] }, string[]] => [
      `the pattern ${value}`,
      { rg: 'rg', pattern: value, paths: [value] },
      ['rg', '--no-config', '-e', value, '--', value],
    ]),
    [
      'a value inside its flag',
      { rg: 'rg', flags: ['--glob=-*.ts', '--type=--pre'] },
      ['rg', '--no-config', '--glob=-*.ts', '--type=--pre'],
    ],
    ['no paths: no "--"', { rg: 'rg', flags: ['--files'], paths: [] }, ['rg', '--no-config', '--files']],
    ['several paths', { rg: 'rg', pattern: 'p', paths: ['a', '-b'] }, ['rg', '--no-config', '-e', 'p', '--', 'a', '-b']],
  ])('%s', (_, call, argv) => {
    expect(rgArgv(call)).toEqual(argv)
  })

  it.each(['3', 'needle', '', '--', '-', ' --files'])('refuses %j as a flag: a value never stands as its own word', (flag) => {
    expect(() => rgArgv({ rg: 'rg', flags: ['--context', flag] })).toThrow(RangeError)
  })
})

describe('rgCommand', () => {
  it('quotes every word and reads stdin from /dev/null', () => {
    expect(rgCommand({ rg: '/opt/my rg', flags: ['--color=never'], pattern: "it's", paths: ['-rf'] })).toBe(
      "'/opt/my rg' --no-config '--color=never' -e 'it'\\''s' -- -rf </dev/null",
    )
  })

  it('lists the directory it runs in when given no paths', () => {
    expect(rgCommand({ rg: 'rg', flags: ['--files'] })).toBe('rg --no-config --files </dev/null')
  })

  it("takes the script's positional parameters after the pattern", () => {
    expect(rgCommand({ rg: 'rg', flags: ['--null'], pattern: '-e', paths: 'script' })).toBe('rg --no-config --null -e -e "$@" </dev/null')
  })

  it('asks a candidate for its version alone, with the shell word the probe gives', () => {
    expect(rgVersionCommand('"$p"')).toBe('"$p" --version </dev/null')
  })

  describe('through a real bash and rg', () => {
    const tree = scratchDirs()('rg-command')
    const run = (command: string) => spawnSync('bash', ['-c', command], { cwd: tree, encoding: 'utf8' })

    it.each(FLAG_LIKE.filter((value) => value !== '-'))('searches the pattern %j in a file named like a flag', (value) => {
      writeTree(tree, { [`-${value.replace(/[-=]/g, '')}.txt`]: `${value}\n` })
      const file = `-${value.replace(/[-=]/g, '')}.txt`
      const result = run(rgCommand({ rg: rgPath, flags: ['--fixed-strings', '--no-filename'], pattern: value, paths: [file] }))
      expect(result).toMatchObject({ status: 0, stdout: `${value}\n` })
    })

    it('ignores a config file that would add flags', () => {
      writeTree(tree, { 'cfg/a.txt': 'needle\n' })
      const config = join(tree, 'rgconfig')
      writeFileSync(config, '--files\n')
      const result = spawnSync('bash', ['-c', rgCommand({ rg: rgPath, flags: ['--no-filename'], pattern: 'needle', paths: ['cfg'] })], {
        cwd: tree,
        encoding: 'utf8',
        env: { ...process.env, RIPGREP_CONFIG_PATH: config },
      })
      expect(result).toMatchObject({ status: 0, stdout: 'needle\n' })
    })

    it('does not read stdin when it has no path', () => {
      writeTree(tree, { 'only/b.txt': 'x\n' })
      const result = spawnSync('bash', ['-c', `cd only && ${rgCommand({ rg: rgPath, pattern: 'stdin' })}`], {
        cwd: tree,
        encoding: 'utf8',
        input: 'stdin is not read\n',
      })
      expect(result).toMatchObject({ status: 1, stdout: '' })
    })
  })
})
