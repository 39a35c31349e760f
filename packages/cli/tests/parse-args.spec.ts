import { describe, expect, it } from 'vitest'
import { parseCliArgs, UsageError } from '../src/parse-args.js'

describe('parseCliArgs', () => {
  it('reads grep PATTERN PATH --include with every common option', () => {
    expect(
      parseCliArgs(['grep', 'needle', 'src', '--include', '*.ts', '--cwd', 'w', '--config', 'c.json', '--spill-dir', 's', '--session', 'id', '--format', 'json']),
    ).toEqual({
      command: 'grep',
      toolArgs: { pattern: 'needle', path: 'src', include: '*.ts' },
      cwd: 'w',
      configFile: 'c.json',
      spillDir: 's',
      session: 'id',
      format: 'json',
    })
  })

  it('reads glob PATTERN alone with text output by default and no optional fields', () => {
    expect(parseCliArgs(['glob', '**/*.ts'])).toEqual({ command: 'glob', toolArgs: { pattern: '**/*.ts' }, format: 'text' })
  })

  it('takes a pattern that starts with "-" after "--"', () => {
    expect(parseCliArgs(['grep', '--', '-foo', '--bar'])).toMatchObject({ command: 'grep', toolArgs: { pattern: '-foo', path: '--bar' } })
  })

  it.each([
    [['--help'], 'help'],
    [['-h', 'grep', 'x'], 'help'],
    [['--version'], 'version'],
    [['-v'], 'version'],
    [['tools'], 'tools'],
  ] as const)('reads %j as the %s command', (argv, command) => {
    expect(parseCliArgs(argv)).toEqual({ command, toolArgs: {}, format: 'text' })
  })

  it.each([
    [[], 'no command given'],
    [['search', 'x'], 'unknown command "search"'],
    [['grep'], 'grep takes PATTERN [PATH]'],
    [['glob', 'a', 'b', 'c'], 'glob takes PATTERN [PATH]'],
    [['glob', '*.ts', '--include', '*.ts'], '--include belongs to grep'],
    [['tools', 'extra'], 'tools takes no arguments'],
    [['tools', '--include', '*.ts'], 'tools takes no arguments'],
    [['grep', 'x', '--format', 'yaml'], '--format must be text or json, not "yaml"'],
    [['grep', 'x', '--frobnicate'], "Unknown option '--frobnicate'"],
    [['grep', 'x', '--cwd'], "Option '--cwd <value>' argument missing"],
  ] as const)('rejects %j with a usage error naming the problem', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError)
    expect(() => parseCliArgs(argv)).toThrow(message)
  })
})
