import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, HarnessError, ToolRegistry, type ToolExecContext } from '@dsh/core'

const seen: ToolExecContext[] = []
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.strictObject({ a: z.number(), b: z.number() }),
  isReadOnly: true,
  isConcurrencySafe: true,
  searchHint: 'sum plus',
  execute: async ({ a, b }, exec) => {
    seen.push(exec)
    return { content: String(a + b), value: a + b, presentationMeta: { sum: a + b } }
  },
  presentResult: (result) => ({ card: 'generic', isError: result.isError }),
})
const write = defineTool({
  name: 'write',
  description: 'Pretends to write.',
  parameters: z.strictObject({}),
  timeoutMs: 1000,
  execute: async () => ({ content: 'written' }),
})
const failing = defineTool({
  name: 'failing',
  description: 'Fails in the way its argument says.',
  parameters: z.strictObject({ how: z.enum(['harness', 'error', 'string']) }),
  execute: async ({ how }) => {
    if (how === 'harness') throw new HarnessError('SEARCH_FAILED', 'rg could not read the root')
    if (how === 'error') throw new TypeError('undefined is not a function')
    throw 'a bare string'
  },
  presentResult: () => {
    throw new Error('presenter bug')
  },
})

function registry(): ToolRegistry {
  const r = new ToolRegistry()
  r.register(add)
  r.register(write)
  r.register(failing)
  r.add({ id: 'math', tool: 'add', text: 'Use add for sums.' })
  r.add({ id: 'general', text: 'Be brief.' })
  return r
}

describe('ToolRegistry.execute', () => {
  it('runs a tool with validated arguments and an execution context', async () => {
    const agent = { session: { header: { id: 's1', cwd: '/w' } } }
    const result = await registry().execute('add', { a: 2, b: 3 }, { callId: 'c1', agent, nested: true })
    expect(result).toEqual({ content: '5', isError: false, value: 5, meta: { sum: 5 } })
    expect(seen.at(-1)).toMatchObject({ name: 'add', callId: 'c1', agent, nested: true })
    expect(seen.at(-1)?.signal).toBeInstanceOf(AbortSignal)
  })

  it('gives each call a fresh call id when the caller has none', async () => {
    await registry().execute('add', { a: 1, b: 1 })
    const first = seen.at(-1)?.callId
    await registry().execute('add', { a: 1, b: 1 })
    expect(first).toMatch(/^[0-9a-f-]{36}$/)
    expect(seen.at(-1)?.callId).not.toBe(first)
    expect(seen.at(-1)).not.toHaveProperty('agent')
  })

  it('passes on where a tool spilled its complete result', async () => {
    const r = new ToolRegistry()
    r.register(
      defineTool({
        name: 'spiller',
        description: 'Spills.',
        parameters: z.strictObject({}),
        execute: async () => ({ content: 'page', spilledTo: '/spill/s/1-r.txt' }),
      }),
    )
    expect(await r.execute('spiller', {})).toEqual({ content: 'page', isError: false, spilledTo: '/spill/s/1-r.txt' })
  })

  it('returns output without value or meta when the tool gives none', async () => {
    expect(await registry().execute('write', {})).toEqual({ content: 'written', isError: false })
  })

  it('reports invalid arguments as an isError result naming the field and the problem', async () => {
    const result = await registry().execute('add', { a: 'two', b: 3 })
    expect(result.isError).toBe(true)
    expect(result.errorCode).toBe('TOOL_INVALID_ARGUMENTS')
    expect(result.content).toMatch(/^invalid arguments for add: a: .*expected number/i)
  })

  it('rejects unknown fields because parameters are strict objects', async () => {
    const result = await registry().execute('add', { a: 1, b: 2, c: 3 })
    expect(result.content).toMatch(/Unrecognized key.*"c"/)
  })

  it('names the registered tools when asked for an unknown one', async () => {
    expect(await registry().execute('nope', {})).toMatchObject({
      isError: true,
      errorCode: 'TOOL_NOT_FOUND',
      content: 'no tool named nope; registered tools: add, write, failing',
    })
    expect((await new ToolRegistry().execute('nope', {})).content).toMatch(/registered tools: none$/)
  })

  it('turns a thrown HarnessError into an isError result with its code', async () => {
    expect(await registry().execute('failing', { how: 'harness' })).toEqual({
      content: 'rg could not read the root',
      isError: true,
      errorCode: 'SEARCH_FAILED',
    })
  })

  it.each([
    ['error', 'tool failed unexpectedly: undefined is not a function'],
    ['string', 'tool failed unexpectedly: a bare string'],
  ])('turns an unexpected %s throw into an isError result, never a crash', async (how, content) => {
    expect(await registry().execute('failing', { how })).toEqual({ content, isError: true, errorCode: 'TOOL_FAILED' })
  })
})

describe('ToolRegistry listing', () => {
  it('lists tools with schemas, metadata and their prompt sections', () => {
    const [first, second] = registry().list()
    expect(first).toMatchObject({
      name: 'add',
      isReadOnly: true,
      isConcurrencySafe: true,
      searchHint: 'sum plus',
      promptSections: [{ id: 'math', tool: 'add', text: 'Use add for sums.' }],
      inputSchema: { type: 'object', required: ['a', 'b'] },
    })
    expect(first).not.toHaveProperty('timeoutMs')
    expect(second).toMatchObject({ name: 'write', timeoutMs: 1000, promptSections: [] })
    expect(second).not.toHaveProperty('searchHint')
  })

  it('keeps every section in registration order', () => {
    expect(
      registry()
        .sections()
        .map((s) => s.id),
    ).toEqual(['math', 'general'])
  })

  it('refuses a duplicate tool or section', () => {
    const r = registry()
    expect(() => r.register(add)).toThrow(expect.objectContaining({ code: 'TOOL_DUPLICATE' }))
    expect(() => r.add({ id: 'math', text: 'again' })).toThrow(
      expect.objectContaining({ code: 'PROMPT_SECTION_DUPLICATE', message: expect.stringMatching(/already registered/) }),
    )
    expect(r.get('add')).toBe(add)
  })
})

describe('ToolRegistry.planBatch', () => {
  it('groups consecutive concurrency-safe calls and runs the rest alone, in order', () => {
    const plan = registry().planBatch([{ name: 'add' }, { name: 'add' }, { name: 'write' }, { name: 'unknown' }, { name: 'add' }])
    expect(plan).toEqual([
      { mode: 'parallel', calls: [0, 1] },
      { mode: 'serial', calls: [2] },
      { mode: 'serial', calls: [3] },
      { mode: 'parallel', calls: [4] },
    ])
  })
})

describe('ToolRegistry.present', () => {
  it('builds the view the tool presents', async () => {
    const r = registry()
    const result = await r.execute('add', { a: 1, b: 2 })
    expect(r.present('add', { a: 1, b: 2 }, result)).toEqual({ card: 'generic', isError: false })
  })

  it('falls back to no view for a tool without a presenter, bad arguments, or a presenter that throws', () => {
    const r = registry()
    const result = { content: 'x', isError: false } as const
    expect(r.present('write', {}, result)).toBeUndefined()
    expect(r.present('add', { a: 'x' }, result)).toBeUndefined()
    expect(r.present('nope', {}, result)).toBeUndefined()
    expect(r.present('failing', { how: 'error' }, result)).toBeUndefined()
  })
})
