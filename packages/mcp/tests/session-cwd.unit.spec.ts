import { Client, InMemoryTransport, type Root } from '@modelcontextprotocol/client'
import { Server } from '@modelcontextprotocol/server'
import { afterEach, describe, expect, it } from 'vitest'
import type { SearchIndex } from '@dsh/core'
import { buildDshMcpServer } from '../src/server.js'
import { followClientRoots, type SessionCwd } from '../src/session-cwd.js'
import { budgetMs } from '../../../test-support/budget.js'
import { connect, preparingIndex, requestMethods, silentLogger, testHarness, waitUntil, type Connection } from './fixtures.js'

let connection: Connection | undefined
afterEach(async () => {
  await connection?.close()
  connection = undefined
})

const root = (path: string): Root => ({ uri: `file://${path}`, name: path })

async function echoCwd(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'echo', arguments: { text: '' } })
  const [text] = result.content as { text: string }[]
  return /cwd (.*)\)$/.exec(text!.text)![1]!
}

describe('the session cwd over MCP', () => {
  it("is the client's first local file:// root", async () => {
    const { harness } = await testHarness()
    // The SDK admits only file:// roots; one naming another host is no local directory.
    connection = await connect(
      harness,
      {},
      { roots: () => [{ uri: 'file://build-host/repo', name: 'remote' }, root('/work/a'), root('/work/b')] },
    )
    expect(await echoCwd(connection.client)).toBe('/work/a')
  })

  it('follows the roots when the client says they changed', async () => {
    const { harness } = await testHarness()
    let roots = [root('/work/a')]
    connection = await connect(harness, {}, { roots: () => roots })
    expect(await echoCwd(connection.client)).toBe('/work/a')
    roots = [root('/work/b')]
    await connection.client.sendRootsListChanged()
    expect(await echoCwd(connection.client)).toBe('/work/b')
    roots = []
    await connection.client.sendRootsListChanged()
    expect(await echoCwd(connection.client)).toBe('/fallback')
    expect(requestMethods(connection.sent)).toEqual(['roots/list', 'roots/list', 'roots/list'])
  })

  it('is the fallback, and roots/list is never sent, for a client without the roots capability', async () => {
    const { harness } = await testHarness()
    connection = await connect(harness)
    expect(await echoCwd(connection.client)).toBe('/fallback')
    expect(requestMethods(connection.sent)).toEqual([])
  })

  it('is the given cwd, and roots are not asked for, when the host chose one', async () => {
    const { harness } = await testHarness()
    connection = await connect(harness, { cwd: '/chosen' }, { roots: () => [root('/work/a')] })
    expect(await echoCwd(connection.client)).toBe('/chosen')
    await connection.client.sendRootsListChanged()
    expect(await echoCwd(connection.client)).toBe('/chosen')
    expect(requestMethods(connection.sent)).toEqual([])
  })

  it('stays where it was, with a warning, when roots/list fails', async () => {
    const { harness } = await testHarness()
    connection = await connect(harness, {}, { roots: () => Promise.reject(new Error('no roots today')) })
    expect(await echoCwd(connection.client)).toBe('/fallback')
    // Asked when the client initialized, and again by the call, since no answer had come.
    expect(connection.logger.lines).toEqual([
      expect.stringMatching(/^warn: mcp: roots\/list failed \(.*no roots today.*\); tools run in \/fallback$/),
      expect.stringMatching(/^warn: mcp: roots\/list failed \(.*no roots today.*\); tools run in \/fallback$/),
    ])
  })

  it('fails a call with Invalid params saying how to name a workspace, when nothing names one', async () => {
    const { harness } = await testHarness()
    connection = await connect(harness, { fallbackCwd: undefined })
    await expect(echoCwd(connection.client)).rejects.toThrow(/^no workspace to search: .*start dsh mcp with --cwd DIR/)
    await connection.close()
    connection = await connect(harness, { fallbackCwd: undefined }, { roots: () => Promise.reject(new Error('none')) })
    await expect(echoCwd(connection.client)).rejects.toMatchObject({ code: -32602 })
    expect(connection.logger.lines[0]).toMatch(/tools run in no workspace until one is named$/)
  })
})

describe('the content index, prepared where calls will run (docs/design.md#a-warm-process-loads-its-index-first)', () => {
  it('for the cwd the host chose, once the client is initialized, and not again when roots change', async () => {
    const { searchIndex, dirs } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    connection = await connect(harness, { cwd: '/chosen' }, { roots: () => [root('/work/a')] })
    expect(await waitUntil(() => dirs.length > 0, budgetMs(5000))).toBe(true)
    await connection.client.sendRootsListChanged()
    expect(await echoCwd(connection.client)).toBe('/chosen')
    expect(dirs).toEqual(['/chosen'])
  })

  it('for each root the client names, and for the fallback when it names none or has no roots', async () => {
    const { searchIndex, dirs } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    let roots = [root('/work/a')]
    connection = await connect(harness, {}, { roots: () => roots })
    expect(await echoCwd(connection.client)).toBe('/work/a')
    roots = []
    await connection.client.sendRootsListChanged()
    expect(await echoCwd(connection.client)).toBe('/fallback')
    expect(dirs).toEqual(['/work/a', '/fallback'])
    await connection.close()
    const plain = preparingIndex()
    connection = await connect((await testHarness({ searchIndex: plain.searchIndex })).harness)
    expect(await waitUntil(() => plain.dirs.length > 0, budgetMs(5000))).toBe(true)
    expect(plain.dirs).toEqual(['/fallback'])
  })

  it("through the search tools' warm-up when they provide one, which prepares the index itself", async () => {
    const { searchIndex, dirs } = preparingIndex()
    const warmed: string[] = []
    const searchWarmUp = { prepare: ({ dir }: { dir: string }) => (warmed.push(dir), Promise.resolve()) }
    const { harness } = await testHarness({ searchIndex, searchWarmUp })
    connection = await connect(harness, { cwd: '/chosen' })
    expect(await waitUntil(() => warmed.length > 0, budgetMs(5000))).toBe(true)
    expect(warmed).toEqual(['/chosen'])
    expect(dirs).toEqual([])
  })

  it("says so in the log, and serves on, when a host's own index fails to prepare", async () => {
    const searchIndex: SearchIndex = {
      plan: () => Promise.resolve({ kind: 'full-scan', reason: 'no-index', detail: 'none here' }),
      prepare: () => Promise.reject(new Error('disk on fire')),
    }
    const { harness } = await testHarness({ searchIndex })
    connection = await connect(harness, { cwd: '/chosen' })
    expect(await waitUntil(() => connection!.logger.lines.length > 0, budgetMs(5000))).toBe(true)
    expect(connection.logger.lines).toEqual(['warn: mcp: preparing the workspace /chosen failed: disk on fire'])
    expect(await echoCwd(connection.client)).toBe('/chosen')
  })

  it('not for a client with neither roots nor a fallback; and no longer once released', async () => {
    const { searchIndex, dirs, signals } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    connection = await connect(harness, { fallbackCwd: undefined })
    await expect(connection.client.callTool({ name: 'echo', arguments: { text: '' } })).rejects.toThrow(/no workspace to search/)
    expect(dirs).toEqual([])
    const legacy = buildDshMcpServer({ harness, cwd: '/chosen', session: 'l', name: 'dsh', version: '1', logger: silentLogger() })
    legacy.server.oninitialized!()
    expect(dirs).toEqual(['/chosen'])
    expect(signals[0]!.aborted).toBe(false)
    legacy.release()
    expect(signals[0]!.aborted).toBe(true)
  })

  it('for a 2026-07-28 server, when it is built: its --cwd, else the workspace calls naming none run in; not for one built per request', async () => {
    const { searchIndex, dirs, signals } = preparingIndex()
    const { harness } = await testHarness({ searchIndex })
    const modern = (options: { cwd?: string; fallbackCwd?: string; preparesAhead?: boolean }) =>
      buildDshMcpServer({ harness, session: 'm', name: 'dsh', version: '1', logger: silentLogger(), era: 'modern', ...options })
    const chosen = modern({ cwd: '/chosen', fallbackCwd: '/fallback' })
    // No handshake to wait for: prepared at once.
    expect(chosen.server.oninitialized).toBeUndefined()
    expect(dirs).toEqual(['/chosen'])
    modern({ fallbackCwd: '/fallback' }).release()
    expect(dirs).toEqual(['/chosen', '/fallback'])
    expect(signals[1]!.aborted).toBe(true)
    modern({}).release()
    modern({ cwd: '/chosen', preparesAhead: false }).release()
    expect(dirs).toEqual(['/chosen', '/fallback'])
    expect(signals[0]!.aborted).toBe(false)
    chosen.release()
    expect(signals[0]!.aborted).toBe(true)
  })
})

/** A server that only follows roots, and a client whose roots/list answers are the test's to release. */
async function rootsPair(rootsWaitMs: number, fallbackCwd: string | undefined = '/fallback') {
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} })
  const logger = silentLogger()
  const cwd: SessionCwd = followClientRoots(server, { fallbackCwd, logger, rootsWaitMs })
  const answers: ((roots: Root[]) => void)[] = []
  const client = new Client({ name: 'c', version: '1' }, { capabilities: { roots: { listChanged: true } } })
  client.setRequestHandler('roots/list', () => new Promise((resolve) => answers.push((roots) => resolve({ roots }))))
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(a)
  await client.connect(b)
  return { cwd, client, answers, logger }
}

describe('followClientRoots', () => {
  it('lets a call wait for an unanswered roots/list only so long, then later calls see the answer', async () => {
    const { cwd, client, answers } = await rootsPair(50)
    expect(await waitUntil(() => answers.length === 1, 5000)).toBe(true)
    expect(await cwd.current({ signal: new AbortController().signal })).toBe('/fallback')
    answers[0]!([root('/late')])
    expect(await cwd.current({ signal: new AbortController().signal })).toBe('/late')
    await client.close()
  })

  it('waits for the answer when it comes in time', async () => {
    const { cwd, client, answers } = await rootsPair(60_000)
    expect(await waitUntil(() => answers.length === 1, 5000)).toBe(true)
    const current = cwd.current({ signal: new AbortController().signal })
    answers[0]!([root('/in-time')])
    expect(await current).toBe('/in-time')
    await client.close()
  })

  it("stops waiting when the call's signal aborts", async () => {
    const { cwd, client, answers } = await rootsPair(60_000)
    expect(await waitUntil(() => answers.length === 1, 5000)).toBe(true)
    const controller = new AbortController()
    const current = cwd.current({ signal: controller.signal })
    controller.abort()
    expect(await current).toBe('/fallback')
    await client.close()
  })

  it("asks again, with the call's request id, when the first question was never answered", async () => {
    const { cwd, client, answers } = await rootsPair(60_000, undefined)
    expect(await waitUntil(() => answers.length === 1, 5000)).toBe(true)
    const current = cwd.current({ signal: new AbortController().signal, requestId: 7 })
    expect(await waitUntil(() => answers.length === 2, 5000)).toBe(true)
    answers[1]!([root('/asked-again')])
    expect(await current).toBe('/asked-again')
    // Answered now: a later call does not ask.
    expect(await cwd.current({ signal: new AbortController().signal, requestId: 8 })).toBe('/asked-again')
    expect(answers).toHaveLength(2)
    await client.close()
  })

  it('keeps the newest answer when an older roots/list answers last', async () => {
    const { cwd, client, answers } = await rootsPair(60_000)
    expect(await waitUntil(() => answers.length === 1, 5000)).toBe(true)
    await client.sendRootsListChanged()
    expect(await waitUntil(() => answers.length === 2, 5000)).toBe(true)
    answers[1]!([root('/newer')])
    expect(await cwd.current({ signal: new AbortController().signal })).toBe('/newer')
    answers[0]!([root('/older')])
    // Let the older answer arrive: it is the one that must not win.
    await new Promise((resolve) => setTimeout(resolve, budgetMs(50)))
    expect(await cwd.current({ signal: new AbortController().signal })).toBe('/newer')
    await client.close()
  })
})
