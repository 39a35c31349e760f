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
  resultViewSchema: { type: 'object', properties: { card: { const: 'generic' } } },
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
      resultViewSchema: { type: 'object', properties: { card: { const: 'generic' } } },
    })
    expect(first).not.toHaveProperty('timeoutMs')
    expect(second).toMatchObject({ name: 'write', timeoutMs: 1000, promptSections: [] })
    expect(second).not.toHaveProperty('searchHint')
    expect(second).not.toHaveProperty('resultViewSchema')
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

describe('ToolRegistry deferred tools', () => {
  const empty = z.strictObject({})
  const tool = (name: string, metadata: { shouldDefer?: boolean; alwaysLoad?: boolean; isMcp?: boolean } = {}) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      parameters: empty,
      ...metadata,
      execute: async () => ({ content: `${name} ran` }),
    })
  const search = tool('tool_search', { shouldDefer: true })

  /** A registry with a plain tool, a deferred one, an MCP one, an MCP one that always loads, and the search tool. */
  function deferring(): ToolRegistry {
    const r = new ToolRegistry()
    for (const t of [
      tool('grep'),
      tool('notebook_edit', { shouldDefer: true }),
      tool('mcp__slack__send_message', { isMcp: true }),
      tool('mcp__github__get_me', { isMcp: true, alwaysLoad: true }),
      search,
    ])
      r.register(t)
    r.add({ id: 'search', tool: 'tool_search', text: 'Use tool_search.' })
    return r
  }
  const names = (listings: { name: string }[]) => listings.map((l) => l.name)
  const session = (id: string) => ({ agent: { session: { header: { id, cwd: '/w' } } } })

  it('lists every tool to a host without sessions, deferred ones included', () => {
    expect(names(deferring().list())).toEqual(['grep', 'notebook_edit', 'mcp__slack__send_message', 'mcp__github__get_me', 'tool_search'])
  })

  it("keeps deferred tools out of a session's listing and names them in tool_search's", () => {
    const listed = deferring().listFor('s1')
    expect(names(listed)).toEqual(['grep', 'mcp__github__get_me', 'tool_search'])
    expect(listed.at(-1)!.promptSections).toEqual([
      { id: 'search', tool: 'tool_search', text: 'Use tool_search.' },
      {
        id: 'core/deferred-tools',
        tool: 'tool_search',
        text: 'Deferred tools not loaded yet (names only; load one with tool_search before calling it): notebook_edit, mcp__slack__send_message.',
      },
    ])
  })

  it('lists the tools a session loaded, for that session only, and stops naming them once all are loaded', () => {
    const r = deferring()
    r.loadDeferred('s1', ['mcp__slack__send_message', 'grep'])
    expect(names(r.listFor('s1'))).toEqual(['grep', 'mcp__slack__send_message', 'mcp__github__get_me', 'tool_search'])
    expect(names(r.listFor('s2'))).toEqual(['grep', 'mcp__github__get_me', 'tool_search'])
    expect(r.loadedDeferred('s1')).toEqual(['mcp__slack__send_message'])
    expect(r.loadedDeferred('s2')).toEqual([])
    r.loadDeferred('s1', ['notebook_edit', 'mcp__slack__send_message'])
    expect(r.loadedDeferred('s1')).toEqual(['mcp__slack__send_message', 'notebook_edit'])
    expect(
      r
        .listFor('s1')
        .at(-1)!
        .promptSections.map((s) => s.id),
    ).toEqual(['search'])
  })

  it('reports the deferred tools in registration order, and loads none of an unknown name', () => {
    const r = deferring()
    expect(names(r.deferred())).toEqual(['notebook_edit', 'mcp__slack__send_message'])
    expect(() => r.loadDeferred('s1', ['notebook_edit', 'nope', 'nada'])).toThrow(
      expect.objectContaining({ code: 'TOOL_NOT_FOUND', message: 'cannot load nope, nada: no tool has that name' }),
    )
    expect(r.loadedDeferred('s1')).toEqual([])
  })

  it('defers nothing while no tool_search is registered to load it', () => {
    const r = new ToolRegistry()
    r.register(tool('notebook_edit', { shouldDefer: true }))
    r.register(tool('mcp__slack__send_message', { isMcp: true }))
    expect(r.deferred()).toEqual([])
    expect(names(r.listFor('s1'))).toEqual(['notebook_edit', 'mcp__slack__send_message'])
    expect(r.listFor('s1').flatMap((l) => l.promptSections)).toEqual([])
  })

  it('refuses a call to a deferred tool its session has not loaded, saying how to load it', async () => {
    const r = deferring()
    expect(await r.execute('mcp__slack__send_message', {}, session('s1'))).toEqual({
      isError: true,
      errorCode: 'TOOL_NOT_LOADED',
      content:
        'mcp__slack__send_message is a deferred tool not loaded in this session; load it with tool_search (query "select:mcp__slack__send_message"), then call it again',
    })
    r.loadDeferred('s1', ['mcp__slack__send_message'])
    expect(await r.execute('mcp__slack__send_message', {}, session('s1'))).toEqual({
      isError: false,
      content: 'mcp__slack__send_message ran',
    })
    expect(await r.execute('mcp__slack__send_message', {}, session('s2'))).toMatchObject({ errorCode: 'TOOL_NOT_LOADED' })
  })

  it('runs a tool that uses a workspace only for a session that has one; one that does not, always', async () => {
    const r = new ToolRegistry()
    r.register(tool('grep'))
    r.register(defineTool({ ...tool('tool_search'), usesWorkspace: false }))
    const none = { agent: { session: { header: { id: 's1' } } } }
    expect(await r.execute('grep', {}, none)).toEqual({
      isError: true,
      errorCode: 'TOOL_NO_WORKSPACE',
      content: 'grep searches a workspace, and this session has none: the host named no directory',
    })
    expect(await r.execute('tool_search', {}, none)).toEqual({ isError: false, content: 'tool_search ran' })
    // A host that names no session at all keeps the library's behaviour: the process's own directory.
    expect(await r.execute('grep', {})).toEqual({ isError: false, content: 'grep ran' })
    expect(r.list().map((l) => [l.name, l.usesWorkspace])).toEqual([
      ['grep', true],
      ['tool_search', false],
    ])
  })

  it('runs any tool for a caller without a session, and tools never deferred in any session', async () => {
    const r = deferring()
    expect(await r.execute('notebook_edit', {})).toEqual({ isError: false, content: 'notebook_edit ran' })
    for (const name of ['grep', 'mcp__github__get_me', 'tool_search']) {
      expect(await r.execute(name, {}, session('s1'))).toEqual({ isError: false, content: `${name} ran` })
    }
  })

  it('names the MCP servers still connecting, each once and sorted, until their connections settle', async () => {
    const r = new ToolRegistry()
    expect(r.pendingServers()).toEqual([])
    let connectSlack!: () => void
    let failJira!: (error: Error) => void
    r.awaitServer('slack', new Promise<void>((resolve) => (connectSlack = resolve)))
    r.awaitServer('jira', new Promise<void>((_, reject) => (failJira = reject)))
    const linear = Promise.resolve()
    r.awaitServer('slack', new Promise<void>(() => undefined))
    r.awaitServer('linear', linear)
    expect(r.pendingServers()).toEqual(['jira', 'linear', 'slack'])
    connectSlack()
    failJira(new Error('refused'))
    await linear
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(r.pendingServers()).toEqual(['slack'])
  })

  it('waits for the servers still connecting, at most the time given, and no longer once the caller aborts', async () => {
    const r = new ToolRegistry()
    await r.serversConnected(60_000)
    let connect!: () => void
    r.awaitServer('slack', new Promise<void>((resolve) => (connect = resolve)))
    const waited = r.serversConnected(60_000)
    connect()
    await waited
    expect(r.pendingServers()).toEqual([])

    r.awaitServer('hung', new Promise<void>(() => undefined))
    const started = Date.now()
    await r.serversConnected(20)
    expect(Date.now() - started).toBeGreaterThanOrEqual(15)
    const controller = new AbortController()
    const aborted = r.serversConnected(60_000, controller.signal)
    controller.abort()
    await aborted
    expect(r.pendingServers()).toEqual(['hung'])
  })

  it("bounds the names tool_search's listing carries to the bytes set", () => {
    const r = deferring()
    r.limitUnloadedNames(0)
    const section = r
      .listFor('s1')
      .find((tool) => tool.name === 'tool_search')!
      .promptSections.at(-1)!
    expect(section.text).toMatch(/: 2 more from the MCP servers slack; tool_search finds them by keyword\.$/)
  })
})

describe('ToolRegistry sessions and removed tools', () => {
  const tool = (name: string, metadata: { isMcp?: boolean } = {}) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      parameters: z.strictObject({}),
      ...metadata,
      execute: async () => ({ content: name }),
    })
  function registry(): ToolRegistry {
    const r = new ToolRegistry()
    for (const t of [
      tool('grep'),
      tool('mcp__notes__add', { isMcp: true }),
      tool('mcp__notes__list', { isMcp: true }),
      tool('tool_search'),
    ])
      r.register(t)
    return r
  }
  const names = (listings: { name: string }[]) => listings.map((l) => l.name)

  it('forgets a closed session, so many sessions leave nothing behind', () => {
    const r = registry()
    for (let i = 0; i < 1000; i++) {
      r.loadDeferred(`s${i}`, ['mcp__notes__add'])
      r.forgetSession(`s${i}`)
    }
    expect(r.sessionsWithLoads()).toEqual([])
    r.loadDeferred('open', ['mcp__notes__add'])
    r.loadDeferred('other', ['mcp__notes__list'])
    r.forgetSession('other')
    expect(r.sessionsWithLoads()).toEqual(['open'])
    expect(names(r.listFor('other'))).toEqual(['grep', 'tool_search'])
  })

  it('keeps no entry for a session that loaded nothing deferred', () => {
    const r = registry()
    r.loadDeferred('s1', ['grep', 'tool_search'])
    expect(r.sessionsWithLoads()).toEqual([])
  })

  it('drops an unregistered tool from the listing, the catalog and every session, and then cannot call it', async () => {
    const r = registry()
    r.loadDeferred('s1', ['mcp__notes__add', 'mcp__notes__list'])
    expect(r.unregister('mcp__notes__add')).toBe(true)
    expect(r.unregister('mcp__notes__add')).toBe(false)
    expect(names(r.listFor('s1'))).toEqual(['grep', 'mcp__notes__list', 'tool_search'])
    expect(r.loadedDeferred('s1')).toEqual(['mcp__notes__list'])
    expect(names(r.deferred())).toEqual(['mcp__notes__list'])
    expect(await r.execute('mcp__notes__add', {})).toMatchObject({ isError: true, errorCode: 'TOOL_NOT_FOUND' })
    // A tool registered again under the name is a new tool: not loaded for any session.
    r.register(tool('mcp__notes__add', { isMcp: true }))
    expect(r.loadedDeferred('s1')).toEqual(['mcp__notes__list'])
  })
})
