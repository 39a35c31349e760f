import { describe, expect, it } from 'vitest'
import { flagName, synopsis, toolShape } from '../src/tool-shape.js'
import { listing } from './listing.js'

const grepSchema = {
  type: 'object',
  properties: { pattern: { type: 'string', description: 'The regex.' }, path: { type: 'string' }, include: { type: 'string' } },
  required: ['pattern'],
}

describe('toolShape', () => {
  it('makes required properties and an optional path positionals, the rest flags', () => {
    const shape = toolShape(listing('grep', grepSchema))
    expect(shape.positionals.map((p) => [p.name, p.metavar, p.required])).toEqual([
      ['pattern', 'PATTERN', true],
      ['path', 'PATH', false],
    ])
    expect(shape.flags.map((p) => [p.name, p.metavar, p.type])).toEqual([['include', 'INCLUDE', 'string']])
    expect(shape.positionals[0]!.description).toBe('The regex.')
  })

  it('types numbers, integers, booleans and string arrays; anything else is text', () => {
    const shape = toolShape(
      listing('t', {
        type: 'object',
        properties: {
          offset: { type: 'integer' },
          ratio: { type: 'number' },
          '-i': { type: 'boolean' },
          globs: { type: 'array', items: { type: 'string' } },
          pairs: { type: 'array', items: { type: 'object' } },
          any: {},
        },
      }),
    )
    expect(shape.positionals).toEqual([])
    expect(shape.flags.map((p) => [p.name, p.type, p.metavar])).toEqual([
      ['offset', 'number', 'N'],
      ['ratio', 'number', 'N'],
      ['-i', 'boolean', ''],
      ['globs', 'strings', 'GLOBS'],
      ['pairs', 'string', 'PAIRS'],
      ['any', 'string', 'ANY'],
    ])
  })

  it('orders a required property declared after path before it', () => {
    const shape = toolShape(
      listing('read', { type: 'object', properties: { path: { type: 'string' }, file_path: { type: 'string' } }, required: ['file_path'] }),
    )
    expect(shape.positionals.map((p) => p.name)).toEqual(['file_path', 'path'])
    expect(shape.positionals[0]!.metavar).toBe('FILE_PATH')
  })

  it('reads a schema without properties or required as taking nothing', () => {
    expect(toolShape(listing('none', { type: 'object' }))).toEqual({ positionals: [], flags: [] })
  })
})

describe('flagName and synopsis', () => {
  it('gives one-letter properties a short flag and others a long one', () => {
    const [i, context] = toolShape(
      listing('t', { type: 'object', properties: { '-i': { type: 'boolean' }, context: { type: 'number' } } }),
    ).flags
    expect([flagName(i!), flagName(context!)]).toEqual(['-i', '--context'])
  })

  it('brackets what is optional', () => {
    const shape = toolShape(
      listing('t', {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          path: { type: 'string' },
          mode: { type: 'string' },
          '-i': { type: 'boolean' },
          all: { type: 'boolean' },
        },
        required: ['pattern', 'all'],
      }),
    )
    expect(synopsis('t', shape)).toBe('t PATTERN [PATH] [--mode MODE] [-i] --all')
  })
})
