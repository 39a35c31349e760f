import { describe, expect, it } from 'vitest'
import { UsageError } from '../src/command-line.js'
import { readToolArgs } from '../src/tool-args.js'
import { toolShape } from '../src/tool-shape.js'
import { listing } from './listing.js'

const grep = toolShape(
  listing('grep', {
    type: 'object',
    properties: { pattern: { type: 'string' }, path: { type: 'string' }, include: { type: 'string' } },
    required: ['pattern'],
  }),
)
const read = toolShape(
  listing('read', {
    type: 'object',
    properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
    required: ['path'],
  }),
)
const wide = toolShape(
  listing('wide', {
    type: 'object',
    properties: {
      '-i': { type: 'boolean' },
      '-h': { type: 'boolean' },
      globs: { type: 'array', items: { type: 'string' } },
      format: { type: 'string' },
    },
  }),
)

describe('readToolArgs', () => {
  it('fills positionals in order and reads flags, skipping the shared options', () => {
    expect(readToolArgs('grep', ['grep', 'needle', 'src', '--include', '*.ts', '--format', 'json', '--cwd', 'w'], grep)).toEqual({
      pattern: 'needle',
      path: 'src',
      include: '*.ts',
    })
  })

  it('keeps hostile values exactly as typed', () => {
    const pattern = '$(touch x)`y`\n"\'; rm -rf /'
    expect(readToolArgs('grep', ['grep', '--', pattern, '-rf'], grep)).toEqual({ pattern, path: '-rf' })
  })

  it('takes a positional as a flag, and the words fill the rest', () => {
    expect(readToolArgs('grep', ['grep', '--pattern=-foo', 'src'], grep)).toEqual({ pattern: '-foo', path: 'src' })
    expect(readToolArgs('grep', ['grep', '--path', 'src', 'needle'], grep)).toEqual({ pattern: 'needle', path: 'src' })
  })

  it('converts numbers, and passes out-of-range ones on for the tool to judge', () => {
    expect(readToolArgs('read', ['read', 'f.txt', '--offset', '10', '--limit=+5'], read)).toEqual({ path: 'f.txt', offset: 10, limit: 5 })
    expect(readToolArgs('read', ['read', 'f.txt', '--offset=-3', '--limit', '2.5'], read)).toEqual({
      path: 'f.txt',
      offset: -3,
      limit: 2.5,
    })
  })

  it('reads booleans, short one-letter flags and repeated string flags', () => {
    expect(readToolArgs('wide', ['wide', '-i', '--globs', 'a', '--globs', 'b'], wide)).toEqual({ '-i': true, globs: ['a', 'b'] })
    // -h stays help and --format stays the shared option: the tool's own are reached only as --h.
    expect(readToolArgs('wide', ['wide', '--h', '--format', 'json'], wide)).toEqual({ '-h': true })
  })

  it.each([
    [grep, ['grep'], 'grep takes PATTERN [PATH]'],
    [grep, ['grep', 'a', 'b', 'c'], 'grep takes PATTERN [PATH]'],
    [grep, ['grep', '--pattern', 'a', '--path', 'b', 'c'], 'grep takes no more words'],
    [grep, ['grep', 'x', '--nope'], 'unknown option --nope'],
    [grep, ['grep', 'x', '--include'], "Option '--include <value>' argument missing"],
    [read, ['read', 'f', '--offset', 'ten'], '--offset must be a number, not "ten"'],
    [read, ['read', 'f', '--limit', '1e3'], '--limit must be a number, not "1e3"'],
    [read, ['read', 'f', '--limit', 'Infinity'], '--limit must be a number, not "Infinity"'],
  ] as const)('rejects %j naming the problem and the command', (shape, argv, message) => {
    let thrown: unknown
    try {
      readToolArgs(argv[0], argv, shape)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(UsageError)
    expect((thrown as UsageError).message).toContain(message)
    expect((thrown as UsageError).command).toBe(argv[0])
  })

  it.each([
    [grep, ['grep', 'x', '--includ', '*.ts'], '--includ', '--include'],
    [grep, ['grep', 'x', '--inculde=*.ts'], '--inculde', '--include'],
    [grep, ['grep', 'x', '--fromat', 'json'], '--fromat', '--format'],
    [read, ['read', 'f', '--ofset', '3'], '--ofset', '--offset'],
    [grep, ['grep', 'x', '--nope'], '--nope', undefined],
    // One letter is one edit from any other: a short option gets no guess (-v is not -V).
    [grep, ['grep', '-v', 'x'], '-v', undefined],
    [wide, ['wide', '--j'], '--j', undefined],
  ] as const)('names an unknown option in %j, with the valid one nearest to it', (shape, argv, option, suggestion) => {
    expect(() => readToolArgs(argv[0], argv, shape)).toThrow(
      expect.objectContaining({ message: `unknown option ${option}`, command: argv[0], suggestion }),
    )
  })
})
