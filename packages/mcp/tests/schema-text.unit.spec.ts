import { describe, expect, it } from 'vitest'
import { cleanSchemaText } from '../src/upstream/schema-text.js'

const red = (text: string) => `\u001b[31m${text}\u001b[0m\u200b`
const cleaned = (text: string) => `${text}\\u200b`

describe('cleanSchemaText', () => {
  it('cleans every description and title at any depth: properties, items, combinators, definitions', () => {
    const schema = {
      type: 'object',
      title: red('Args'),
      description: red('The arguments.'),
      properties: {
        description: { type: 'string', description: red('A property named description.') },
        list: { type: 'array', items: { type: 'string', title: red('Item') }, prefixItems: [{ description: red('First') }, true] },
        either: { anyOf: [{ type: 'string', description: red('Text') }, { type: 'null' }] },
      },
      patternProperties: { '^x-': { description: red('Extension') } },
      $defs: { path: { type: 'string', description: red('A path') } },
      additionalProperties: { not: { description: red('Never') } },
    }
    expect(cleanSchemaText(schema)).toEqual({
      type: 'object',
      title: cleaned('Args'),
      description: cleaned('The arguments.'),
      properties: {
        description: { type: 'string', description: cleaned('A property named description.') },
        list: { type: 'array', items: { type: 'string', title: cleaned('Item') }, prefixItems: [{ description: cleaned('First') }, true] },
        either: { anyOf: [{ type: 'string', description: cleaned('Text') }, { type: 'null' }] },
      },
      patternProperties: { '^x-': { description: cleaned('Extension') } },
      $defs: { path: { type: 'string', description: cleaned('A path') } },
      additionalProperties: { not: { description: cleaned('Never') } },
    })
  })

  it('keeps what validation reads as sent: data, patterns, property names, and a property named like a data keyword', () => {
    const schema = {
      type: 'object',
      required: ['pa\u200bth'],
      properties: {
        'pa\u200bth': { type: 'string', pattern: '^\u001b', default: { description: red('data') }, examples: [red('x')] },
        enum: { enum: [red('a')], const: red('a'), description: red('Named enum') },
      },
      propertyNames: { description: 7 },
    }
    const result = cleanSchemaText(schema) as { properties: Record<string, unknown> }
    expect(result.properties['pa\u200bth']).toEqual(schema.properties['pa\u200bth'])
    expect(result.properties.enum).toEqual({ enum: [red('a')], const: red('a'), description: cleaned('Named enum') })
    expect(result).toMatchObject({ required: ['pa\u200bth'], propertyNames: { description: 7 } })
  })
})
