import { describe, expect, it } from 'vitest'
import type { ToolSearchValue } from '@dsh/tool-search'
import { catalogTools } from './catalog.js'
import { catalogHarness, inSession } from './harness.js'

const names = (listings: { name: string }[]) => listings.map((l) => l.name)

describe('tool_search select:', () => {
  it('loads exactly the named tools for the calling session, each once, and reports the names no tool has', async () => {
    const { registry } = await catalogHarness()
    const result = await registry.execute(
      'tool_search',
      { query: 'select: mcp__slack__send_message, Nope ,NotebookEdit,mcp__slack__send_message,grep' },
      inSession('s1'),
    )
    expect(result).toEqual({
      isError: false,
      content: [
        'Loaded 3 tools; their schemas are in your tool list now:',
        '- mcp__slack__send_message: Send a message to a Slack channel or direct message.',
        '- NotebookEdit: Replace, insert or delete a cell in a Jupyter notebook.',
        '- grep: Search file contents with a regular expression.',
        'Not found: no tool is named Nope.',
      ].join('\n'),
      value: {
        mode: 'select',
        matches: [{ name: 'mcp__slack__send_message' }, { name: 'NotebookEdit' }, { name: 'grep' }],
        unknown: ['Nope'],
        pendingServers: [],
      } satisfies ToolSearchValue,
    })
    expect(registry.loadedDeferred('s1')).toEqual(['mcp__slack__send_message', 'NotebookEdit'])
    expect(registry.loadedDeferred('s2')).toEqual([])
  })

  it('matches names exactly: another case is not the same tool', async () => {
    const { registry } = await catalogHarness()
    const result = await registry.execute('tool_search', { query: 'select:notebookedit' }, inSession('s1'))
    expect(result.content).toBe('No matching deferred tools found: no tool is named notebookedit.')
    expect(registry.loadedDeferred('s1')).toEqual([])
  })
})

describe('tool_search keywords', () => {
  it('loads the best matches, names each with its description, and returns them with their scores and terms', async () => {
    const { registry } = await catalogHarness()
    const result = await registry.execute('tool_search', { query: 'notebook jupyter', max_results: 2 }, inSession('s1'))
    expect(result.content).toBe(
      [
        'Loaded 2 tools; their schemas are in your tool list now:',
        '- mcp__jupyter__create_notebook: Create an empty notebook.',
        '- mcp__jupyter__read_notebook: Read a notebook: its cells and their outputs.',
      ].join('\n'),
    )
    expect(result.value).toEqual({
      mode: 'keywords',
      matches: [
        {
          name: 'mcp__jupyter__create_notebook',
          score: 9.163,
          terms: [
            {
              term: 'notebook',
              points: 5.149,
              fields: [
                { field: 'name', match: 'exact' },
                { field: 'description', match: 'exact' },
              ],
            },
            { term: 'jupyter', points: 4.014, fields: [{ field: 'name', match: 'exact' }] },
          ],
        },
        {
          name: 'mcp__jupyter__read_notebook',
          score: 9.016,
          terms: [
            {
              term: 'notebook',
              points: 5.002,
              fields: [
                { field: 'name', match: 'exact' },
                { field: 'description', match: 'exact' },
              ],
            },
            { term: 'jupyter', points: 4.014, fields: [{ field: 'name', match: 'exact' }] },
          ],
        },
      ],
      pendingServers: [],
    } satisfies ToolSearchValue)
    expect(registry.loadedDeferred('s1')).toEqual(['mcp__jupyter__create_notebook', 'mcp__jupyter__read_notebook'])
  })

  it('ranks with the seed point table under scoring: "claude-code"', async () => {
    const { registry } = await catalogHarness(undefined, { scoring: 'claude-code' })
    const result = await registry.execute('tool_search', { query: 'notebook jupyter', max_results: 2 })
    expect((result.value as ToolSearchValue).matches.map((m) => ['score' in m ? m.score : undefined, m.name])).toEqual([
      [26, 'mcp__jupyter__create_notebook'],
      [26, 'mcp__jupyter__read_notebook'],
    ])
  })

  it('reads the catalog again once a tool is registered or removed', async () => {
    const { registry } = await catalogHarness()
    const search = async () => ((await registry.execute('tool_search', { query: 'kubernetes pods' })).value as ToolSearchValue).matches
    expect(await search()).toEqual([])
    const [pods] = catalogTools([{ name: 'mcp__k8s__list_pods', description: 'List the pods of a Kubernetes cluster.', isMcp: true }])
    registry.register(pods!)
    expect((await search()).map((m) => m.name)).toEqual(['mcp__k8s__list_pods'])
    registry.unregister('mcp__k8s__list_pods')
    expect(await search()).toEqual([])
  })

  it('returns five matches unless max_results says otherwise, and at most 50', async () => {
    const { registry } = await catalogHarness()
    const count = async (args: object) => ((await registry.execute('tool_search', args)).value as { matches: unknown[] }).matches.length
    expect(await count({ query: 'browser' })).toBe(5)
    expect(await count({ query: 'browser', max_results: 1 })).toBe(1)
    expect(await count({ query: 'get list create search', max_results: 50 })).toBe(50)
  })

  it('says nothing matched without loading anything', async () => {
    const { registry } = await catalogHarness()
    const result = await registry.execute('tool_search', { query: 'kubernetes' }, inSession('s1'))
    expect(result).toMatchObject({ isError: false, content: 'No matching deferred tools found.' })
    expect(registry.loadedDeferred('s1')).toEqual([])
  })

  it('names the MCP servers still connecting when nothing matched, once it waited for them as configured', async () => {
    const { registry } = await catalogHarness(undefined, { connectingWaitMs: 0 })
    let connect!: () => void
    registry.awaitServer('figma', new Promise<void>((resolve) => (connect = resolve)))
    const result = await registry.execute('tool_search', { query: 'figma frame' })
    expect(result.content).toBe(
      'No matching deferred tools found.\nMCP servers still connecting: figma. Their tools may match once connected; search again shortly.',
    )
    expect(result.value).toMatchObject({ pendingServers: ['figma'] })
    const selected = await registry.execute('tool_search', { query: 'select:mcp__figma__get_frame' })
    expect(selected.content).toMatch(/no tool is named mcp__figma__get_frame\.\nMCP servers still connecting: figma\./)
    connect()
    await Promise.resolve()
    expect((await registry.execute('tool_search', { query: 'figma frame' })).content).toBe('No matching deferred tools found.')
  })

  it('waits for a server still connecting when nothing matched, and finds its tools once it is up', async () => {
    const { registry } = await catalogHarness(undefined, { connectingWaitMs: 60_000 })
    let connect!: () => void
    registry.awaitServer('figma', new Promise<void>((resolve) => (connect = resolve)))
    const searching = registry.execute('tool_search', { query: 'figma frame' })
    await new Promise((resolve) => setTimeout(resolve, 10))
    registry.register(catalogTools([{ name: 'mcp__figma__get_frame', description: 'Get a Figma frame.', isMcp: true }])[0]!)
    connect()
    const result = await searching
    expect(result.content).toBe('Loaded 1 tool; its schema is in your tool list now:\n- mcp__figma__get_frame: Get a Figma frame.')
    expect(result.value).toMatchObject({ pendingServers: [] })
  })

  it('answers at most the configured wait after a search that finds nothing, naming the server that is still connecting', async () => {
    const { registry } = await catalogHarness(undefined, { connectingWaitMs: 30 })
    registry.awaitServer('hung', new Promise<void>(() => undefined))
    const started = Date.now()
    const result = await registry.execute('tool_search', { query: 'select:mcp__hung__x' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    expect(result.content).toMatch(/MCP servers still connecting: hung\./)
  })
})

describe('tool_search and the session listing', () => {
  it('makes a loaded tool part of the next listing, with its schema, and callable', async () => {
    const { registry } = await catalogHarness()
    const before = registry.listFor('s1')
    expect(names(before)).not.toContain('mcp__linear__createIssue')
    expect(await registry.execute('mcp__linear__createIssue', {}, inSession('s1'))).toMatchObject({ errorCode: 'TOOL_NOT_LOADED' })
    const search = before.find((l) => l.name === 'tool_search')!
    expect(search.promptSections.at(-1)!.text).toContain('mcp__linear__createIssue')

    await registry.execute('tool_search', { query: 'select:mcp__linear__createIssue' }, inSession('s1'))
    const after = registry.listFor('s1')
    expect(after.find((l) => l.name === 'mcp__linear__createIssue')).toMatchObject({
      inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
    })
    expect(after.find((l) => l.name === 'tool_search')!.promptSections.at(-1)!.text).not.toContain('mcp__linear__createIssue')
    expect(await registry.execute('mcp__linear__createIssue', {}, inSession('s1'))).toEqual({
      isError: false,
      content: 'mcp__linear__createIssue ran',
    })
    expect(names(registry.listFor('s2'))).not.toContain('mcp__linear__createIssue')
  })

  it('never defers itself or a tool that always loads, and lists only those and the built-ins to a fresh session', async () => {
    const { registry } = await catalogHarness()
    expect(names(registry.deferred())).not.toContain('tool_search')
    expect(names(registry.deferred())).not.toContain('mcp__github__get_me')
    expect(names(registry.listFor('fresh'))).toEqual([
      'mcp__github__get_me',
      'Bash',
      'Edit',
      'Write',
      'glob',
      'grep',
      'read',
      'tool_search',
    ])
    expect(registry.list()).toHaveLength(151)
  })

  it('loads nothing for a call without a session, where every tool is listed already', async () => {
    const { registry } = await catalogHarness()
    const result = await registry.execute('tool_search', { query: 'select:WebFetch' })
    expect(result.content).toBe(
      'Loaded 1 tool; its schema is in your tool list now:\n- WebFetch: Fetch a web page and answer a question about it.',
    )
    expect(registry.loadedDeferred('s1')).toEqual([])
  })
})

describe('tool_search arguments', () => {
  it.each([
    [{ query: '' }, /^invalid arguments for tool_search: query: is empty: give keywords, or select:NAME/],
    [{ query: ' \t\n ' }, /^invalid arguments for tool_search: query: is empty/],
    [{ query: 'select:' }, /^invalid arguments for tool_search: query: select: names no tool/],
    [{ query: 'select: , ' }, /query: select: names no tool/],
    [{ query: 'slack', max_results: 0 }, /max_results: Too small/],
    [{ query: 'slack', max_results: 51 }, /max_results: Too big/],
    [{ query: 'slack', max_results: 2.5 }, /max_results: Invalid input: expected int/],
    [{}, /query: Invalid input: expected string/],
    [{ query: 'slack', limit: 3 }, /Unrecognized key: "limit"/],
  ])('refuses %j', async (args, message) => {
    const { registry } = await catalogHarness()
    const result = await registry.execute('tool_search', args)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toMatch(message)
  })
})
