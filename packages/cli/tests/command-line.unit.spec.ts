import { describe, expect, it } from 'vitest'
import { readCommandLine, UsageError } from '../src/command-line.js'

describe('readCommandLine', () => {
  it('finds the command and every shared option, wherever they stand', () => {
    const argv = [
      '--cwd',
      'w',
      'grep',
      'needle',
      '--config',
      'c.json',
      '--spill-dir',
      's',
      '--session',
      'id',
      '--format',
      'json',
      '--include',
      '*.ts',
      '--color=never',
    ]
    expect(readCommandLine(argv)).toEqual({
      command: 'grep',
      common: {
        cwd: 'w',
        configFile: 'c.json',
        spillDir: 's',
        session: 'id',
        roots: [],
        format: 'json',
        nul: false,
        color: 'never',
        help: false,
        version: false,
      },
      argv,
    })
  })

  it('defaults to text output and leaves unset options out', () => {
    expect(readCommandLine(['glob', '**/*.ts'])).toEqual({
      command: 'glob',
      common: { format: 'text', nul: false, color: 'auto', roots: [], help: false, version: false },
      argv: ['glob', '**/*.ts'],
    })
  })

  it.each([
    [['--help'], { help: true, version: false }, undefined],
    [['-h', 'grep'], { help: true, version: false }, 'grep'],
    [['--version'], { help: false, version: true }, undefined],
    [['-V'], { help: false, version: true }, undefined],
    [['grep', '-xv', 'foo'], { help: false, version: false }, 'grep'],
    [['grep', '-f/proc/self/environ', 'foo'], { help: false, version: false }, 'grep'],
    [['grep', '-Xh', 'foo'], { help: false, version: false }, 'grep'],
    [[], { help: false, version: false }, undefined],
  ] as const)('reads %j', (argv, flags, command) => {
    expect(readCommandLine(argv)).toMatchObject({ command, common: flags })
  })

  it('collects every --root', () => {
    expect(readCommandLine(['--root', 'a', 'read', 'x', '--root=b']).common.roots).toEqual(['a', 'b'])
  })

  it('takes the first word after "--" as the command when none came before', () => {
    expect(readCommandLine(['--', 'grep', '-foo']).command).toBe('grep')
  })

  it.each([
    [['glob', '*', '--format', 'lines'], { format: 'lines', nul: false }],
    [['glob', '*', '-0'], { format: 'lines', nul: true }],
    [['glob', '*', '--null', '--format=lines'], { format: 'lines', nul: true }],
  ] as const)('reads the lines format from %j', (argv, common) => {
    expect(readCommandLine(argv).common).toMatchObject(common)
  })

  it.each([
    [['--fromat', 'json', 'grep', 'x'], '--fromat', '--format'],
    [['--verison'], '--verison', '--version'],
    [['--cdw=src', 'grep', 'x'], '--cdw', '--cwd'],
  ] as const)('names a mistyped shared option in %j, with the one meant', (argv, option, suggestion) => {
    expect(() => readCommandLine(argv)).toThrow(expect.objectContaining({ message: `unknown option ${option}`, suggestion }))
  })

  it.each([
    [['grep', 'x', '--format', 'yaml'], '--format must be text, json, lines or html, not "yaml"'],
    [['grep', 'x', '-0', '--format', 'json'], '-0 (--null) goes with --format lines, not json'],
    [['--frobnicate'], 'unknown option --frobnicate'],
    [['grep', 'x', '--cwd'], "Option '--cwd <value>' argument missing"],
    [['read', 'x', '--root'], "Option '--root <value>' argument missing"],
    [['--include', '*.ts', 'grep', 'x'], '--include must follow the command: dsh *.ts … --include'],
  ] as const)('rejects %j with a usage error naming the problem', (argv, message) => {
    expect(() => readCommandLine(argv)).toThrow(UsageError)
    expect(() => readCommandLine(argv)).toThrow(message)
  })
})
