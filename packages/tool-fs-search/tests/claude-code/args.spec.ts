import { describe, expect, it } from 'vitest'
import { ClaudeGrepArgs, CONTEXT_MAX_LINES, contextLines } from '../../src/claude-code/args.js'

const parse = (args: Record<string, unknown>) => ClaudeGrepArgs.safeParse({ pattern: 'x', ...args })

describe('ClaudeGrepArgs', () => {
  it("takes Claude Code's thirteen parameters and nothing else", () => {
    expect(Object.keys(ClaudeGrepArgs.shape).sort()).toEqual(
      [
        '-A',
        '-B',
        '-C',
        '-i',
        '-n',
        'context',
        'glob',
        'head_limit',
        'multiline',
        'offset',
        'output_mode',
        'path',
        'pattern',
        'type',
      ].sort(),
    )
    expect(parse({ include: '*.ts' }).success).toBe(false)
  })

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a blank pattern', { pattern: '  ' }, /to search for spaces/],
    ['negative context', { '-A': -1 }, /-A must not be negative/],
    ['context past the cap', { '-C': CONTEXT_MAX_LINES + 1 }, /-C must be at most 100000/],
    ['fractional context', { context: 1.5 }, /whole number of lines/],
    ['a fractional head_limit', { head_limit: 2.5 }, /head_limit must be a whole number/],
    ['a negative offset', { offset: -1 }, /offset must not be negative/],
    ['an unknown mode', { output_mode: 'lines' }, /./],
    ['a path-shaped glob in a list', { glob: 'src/*.ts *.js' }, /mixes a path-shaped glob/],
  ])('refuses %s', (_, args, message) => {
    const parsed = parse(args)
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues.map((issue) => issue.message).join('\n')).toMatch(message)
  })

  it('takes whole numbers given as JSON numbers, and the largest context', () => {
    expect(parse({ '-C': CONTEXT_MAX_LINES, head_limit: 0, offset: 2 ** 52 }).success).toBe(true)
  })
})

describe('contextLines', () => {
  it.each<[Record<string, unknown>, { before: number; after: number }]>([
    [{}, { before: 0, after: 0 }],
    [{ '-C': 2 }, { before: 2, after: 2 }],
    [{ context: 3 }, { before: 3, after: 3 }],
    [
      { '-C': 2, context: 9 },
      { before: 2, after: 2 },
    ],
    [
      { '-C': 2, '-A': 0 },
      { before: 2, after: 0 },
    ],
    [
      { '-B': 4, context: 1 },
      { before: 4, after: 1 },
    ],
  ])('reads %j as rg does: -A and -B win on their side', (args, lines) => {
    expect(contextLines(ClaudeGrepArgs.parse({ pattern: 'x', ...args }))).toEqual(lines)
  })
})
