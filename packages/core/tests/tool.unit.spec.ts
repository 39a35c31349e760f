import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CoreError, defineTool, HarnessError, toolJsonSchema } from '@dsh/core'

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: z.strictObject({ text: z.string().min(1).describe('What to echo'), times: z.number().int().optional() }),
  execute: async ({ text }) => ({ content: text }),
})

describe('defineTool', () => {
  it('defaults every metadata flag to the conservative side', () => {
    expect(echo).toMatchObject({ isReadOnly: false, isConcurrencySafe: false, shouldDefer: false, alwaysLoad: false, isMcp: false })
    expect(Object.isFrozen(echo)).toBe(true)
  })

  it('keeps declared metadata', () => {
    const tool = defineTool({ ...echo, isReadOnly: true, isConcurrencySafe: true, searchHint: 'say' })
    expect(tool).toMatchObject({ isReadOnly: true, isConcurrencySafe: true, searchHint: 'say' })
  })

  it('rejects a name a model could not call', () => {
    expect(() => defineTool({ ...echo, name: 'bad name' })).toThrow(
      expect.objectContaining({ code: 'TOOL_INVALID_DEFINITION', message: expect.stringMatching(/tool name "bad name"/) }),
    )
  })

  it.each([0, -5, 1.5])('rejects timeoutMs %s', (timeoutMs) => {
    expect(() => defineTool({ ...echo, timeoutMs })).toThrow(
      expect.objectContaining({ code: 'TOOL_INVALID_DEFINITION', message: expect.stringMatching(/timeoutMs must be a positive integer/) }),
    )
  })
})

describe('toolJsonSchema', () => {
  it('generates a stable schema without the $schema dialect noise', () => {
    const schema = toolJsonSchema(echo)
    expect(schema).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, description: 'What to echo' },
        times: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
      },
      required: ['text'],
      additionalProperties: false,
    })
    expect(JSON.stringify(toolJsonSchema(echo))).toBe(JSON.stringify(schema))
  })

  it('shows the JSON Schema a fronted tool declares instead of its parameters', () => {
    const declared = { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' } }, required: ['q'] }
    const fronted = defineTool({ ...echo, parameters: z.looseObject({}), inputJsonSchema: declared })
    expect(toolJsonSchema(fronted)).toBe(declared)
  })
})

describe('HarnessError', () => {
  it('keeps its code, message, name and cause', () => {
    const cause = new Error('low level')
    const error = new CoreError('TOOL_FAILED', 'readable', { cause })
    expect(error).toMatchObject({ code: 'TOOL_FAILED', message: 'readable', name: 'CoreError', cause })
    expect(error instanceof HarnessError).toBe(true)
    expect(new Error('x') instanceof HarnessError).toBe(false)
    expect(new HarnessError('X', 'y').name).toBe('HarnessError')
  })
})
