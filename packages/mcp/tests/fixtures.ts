// Test plugins, a harness built from them, and the official client connected over linked in-memory transports.
import { Client, InMemoryTransport, type JSONRPCMessage, type Root, type Tool } from '@modelcontextprotocol/client'
import { vi } from 'vitest'
import { z } from 'zod'
import {
  defineTool,
  HarnessError,
  loadHarness,
  type Harness,
  type Logger,
  type PluginContext,
  type SearchIndex,
  type SearchWarmUp,
  type SpillStore,
} from '@dsh/core'
import { createDshMcpServer, type DshMcpOptions } from '@dsh/mcp'
import * as mcpPlugin from '@dsh/mcp/plugin'
import * as toolSearch from '@dsh/tool-search'

/** What the `wait` tool saw of one call: when it started, and the signal it was given. */
export interface WaitCall {
  signal: AbortSignal
  /** Resolves when the call is released or cancelled, with whether its signal was aborted by then. */
  ended: Promise<boolean>
  /** True once `execute` has returned, `lingerMs` after it ended. */
  finished: boolean
  release(): void
}

/** A harness of test tools: `echo`, `fail`, `wait`, `spill`, and a fake spill store holding `texts`. */
export interface TestHarness {
  harness: Harness
  waits: WaitCall[]
  texts: Map<string, string>
}

/** The spill locator the `spill` tool reports. */
export const SPILLED = '/spill/mcp/0001-grep-results.txt'

/** Loads the test tools; `spillStore: false` leaves the store out; `mcp` loads the mcp plugin with that config. */
export async function testHarness(
  options: { spillStore?: SpillStore | false; mcp?: Record<string, unknown>; searchIndex?: SearchIndex; searchWarmUp?: SearchWarmUp } = {},
): Promise<TestHarness> {
  const waits: WaitCall[] = []
  const texts = new Map([[SPILLED, 'line 1\nline 2\nline 3\n']])
  const store: SpillStore = {
    saveText: () => Promise.reject(new Error('not used')),
    saveStream: () => Promise.reject(new Error('not used')),
    holds: (path) => Promise.resolve(path.startsWith('/spill/')),
    // Results another process saved: texts under /spill/<owner>/<name>.
    locate: (owner, name) => {
      const locator = `/spill/${owner}/${name}`
      return Promise.resolve(texts.has(locator) ? locator : undefined)
    },
    readText: async (locator) => {
      const text = texts.get(locator)
      if (text === undefined) throw new HarnessError('SPILL_NOT_FOUND', `no saved result at ${locator}; run the search again`)
      return text
    },
  }
  const tools = {
    name: 'test-tools',
    inject: ['tools', 'systemPrompt'] as const,
    Config: z.strictObject({}),
    apply(ctx: PluginContext<'tools' | 'systemPrompt'>) {
      ctx.tools.register(echo)
      ctx.tools.register(fail)
      ctx.tools.register(wait(waits))
      ctx.tools.register(spill)
      ctx.systemPrompt.add({ id: 'test/echo', tool: 'echo', text: 'Use echo to hear yourself.' })
      ctx.systemPrompt.add({ id: 'test/general', text: 'Be brief.' })
    },
  }
  const services = {
    ...(options.spillStore === false ? {} : { spillStore: options.spillStore ?? store }),
    ...(options.searchIndex === undefined ? {} : { searchIndex: options.searchIndex }),
    ...(options.searchWarmUp === undefined ? {} : { searchWarmUp: options.searchWarmUp }),
  }
  const harness = await loadHarness({
    plugins: options.mcp === undefined ? [tools] : [tools, mcpPlugin],
    config: options.mcp === undefined ? {} : { mcp: options.mcp },
    services,
    logger: silentLogger(),
  })
  return { harness, waits, texts }
}

/**
 * A harness whose tools wait for tool_search: `echo`, listed from the start, two tools of an MCP server
 * named `notes` (deferred as every MCP tool is), and tool_search.
 */
export async function deferringHarness(options: { mcp?: Record<string, unknown> } = {}): Promise<Harness> {
  const notes = {
    name: 'notes',
    inject: ['tools'] as const,
    Config: z.strictObject({}),
    apply(ctx: PluginContext<'tools'>) {
      ctx.tools.register(echo)
      for (const [name, description] of [
        ['mcp__notes__add_note', 'Add a note to the notebook.'],
        ['mcp__notes__list_notes', 'List the notes in the notebook.'],
      ] as const) {
        ctx.tools.register(
          defineTool({
            name,
            description,
            parameters: z.strictObject({ text: z.string() }),
            isMcp: true,
            execute: async ({ text }) => ({ content: `${name}: ${text}` }),
          }),
        )
      }
    },
  }
  if (options.mcp === undefined) return loadHarness({ plugins: [notes, toolSearch], logger: silentLogger() })
  return loadHarness({ plugins: [notes, toolSearch, mcpPlugin], config: { mcp: options.mcp }, logger: silentLogger() })
}

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: z.strictObject({ text: z.string() }),
  isReadOnly: true,
  isConcurrencySafe: true,
  execute: async ({ text }, exec) => ({
    content: `${text} (session ${exec.agent?.session.header.id}, cwd ${exec.agent?.session.header.cwd})`,
  }),
})

const fail = defineTool({
  name: 'fail',
  description: 'Always fails.',
  parameters: z.strictObject({}),
  execute: () => Promise.reject(new HarnessError('TEST_BROKEN', 'fail always fails; do not call it again')),
})

const spill = defineTool({
  name: 'spill',
  description: 'Returns a capped page of a spilled result.',
  parameters: z.strictObject({ locator: z.string().default(SPILLED) }),
  isReadOnly: true,
  execute: async ({ locator }) => ({ content: 'line 1\n(2 more lines in the spilled result)', spilledTo: locator }),
})

function wait(waits: WaitCall[]) {
  return defineTool({
    name: 'wait',
    description: 'Waits until released or cancelled, then lingers as a process group being killed does.',
    parameters: z.strictObject({ lingerMs: z.number().int().default(0) }),
    isReadOnly: true,
    isConcurrencySafe: true,
    execute: async ({ lingerMs }, exec) => {
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const ended = Promise.race([released, new Promise<void>((resolve) => exec.signal.addEventListener('abort', () => resolve()))]).then(
        () => exec.signal.aborted,
      )
      const call: WaitCall = { signal: exec.signal, ended, finished: false, release }
      waits.push(call)
      const cancelled = await ended
      await new Promise((resolve) => setTimeout(resolve, lingerMs))
      call.finished = true
      return { content: cancelled ? 'cancelled' : 'released' }
    },
  })
}

/** A logger that keeps its lines for the test to read. */
export function silentLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return { lines, warn: (message) => lines.push(`warn: ${message}`), info: (message) => lines.push(`info: ${message}`) }
}

/** A connected client, what the server sent it, and the server's log lines. */
export interface Connection {
  client: Client
  /** Every message the server sent the client, in order. */
  sent: JSONRPCMessage[]
  logger: Logger & { lines: string[] }
  close(): Promise<void>
}

/**
 * How the test client presents itself: with `roots`, it declares the capability and answers roots/list;
 * with `onToolsChanged`, it fetches the tool list again whenever the server says it changed, as a host does.
 */
export interface ClientSetup {
  roots?: () => Root[] | Promise<Root[]>
  onToolsChanged?: (tools: Tool[]) => void
}

/** The options a test server runs with: calls run in /fallback, session `mcp`, dsh 9.9.9; `overrides` replace any. */
export function serverOptions(harness: Harness, overrides: Partial<DshMcpOptions> = {}): DshMcpOptions {
  return { harness, fallbackCwd: '/fallback', session: 'mcp', name: 'dsh', version: '9.9.9', logger: silentLogger(), ...overrides }
}

/** Connects the official client to a fresh server over linked in-memory transports. */
export async function connect(harness: Harness, options: Partial<DshMcpOptions> = {}, setup: ClientSetup = {}): Promise<Connection> {
  const logger = silentLogger()
  const server = createDshMcpServer(serverOptions(harness, { logger, ...options }))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const sent: JSONRPCMessage[] = []
  const send = serverSide.send.bind(serverSide)
  serverSide.send = (message, sendOptions) => {
    sent.push(message)
    return send(message, sendOptions)
  }
  const onToolsChanged = setup.onToolsChanged
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    {
      ...(setup.roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } }),
      ...(onToolsChanged === undefined
        ? {}
        : {
            listChanged: {
              tools: { debounceMs: 0, onChanged: (_error: Error | null, tools: Tool[] | null) => onToolsChanged(tools ?? []) },
            },
          }),
    },
  )
  const roots = setup.roots
  if (roots !== undefined) client.setRequestHandler('roots/list', async () => ({ roots: await roots() }))
  await server.connect(serverSide)
  await client.connect(clientSide)
  return { client, sent, logger, close: () => client.close() }
}

/** A session spoken to in raw JSON-RPC, as a client that sends what the official one would refuse to. */
export interface RawSession {
  /** Sends a request with the next id and resolves with the server's answer to it. */
  request(method: string, params?: unknown): Promise<JSONRPCMessage>
  close(): Promise<void>
}

/** Connects a fresh server over linked in-memory transports and initializes it by hand. */
export async function rawSession(harness: Harness): Promise<RawSession> {
  const server = createDshMcpServer(serverOptions(harness))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const waiting = new Map<unknown, (message: JSONRPCMessage) => void>()
  clientSide.onmessage = (message) => {
    if ('id' in message) waiting.get(message.id)?.(message)
  }
  await server.connect(serverSide)
  await clientSide.start()
  let id = 0
  const request = (method: string, params?: unknown): Promise<JSONRPCMessage> => {
    const sent = { jsonrpc: '2.0', id: ++id, method, ...(params === undefined ? {} : { params }) }
    const answered = new Promise<JSONRPCMessage>((resolve) => waiting.set(sent.id, resolve))
    void clientSide.send(sent as JSONRPCMessage)
    return answered
  }
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } })
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return { request, close: () => server.close() }
}

/** The methods of the requests the server sent. */
export function requestMethods(sent: readonly JSONRPCMessage[]): string[] {
  return sent.flatMap((message) => ('method' in message && 'id' in message ? [message.method] : []))
}

/** Polls until `check` holds or `withinMs` passes. */
export { waitUntil } from '../../../test-support/processes.js'

/**
 * Counts, from now until the test restores its mocks, the bytes of `memory` (and of every view of it)
 * that Buffer's indexOf looked at and that Buffer.concat copied: how a reader's work grows with a message.
 */
export function countBufferWork(memory: Buffer): { searched: number; copied: number } {
  const work = { searched: 0, copied: 0 }
  type IndexOf = (this: Buffer, value: string | number | Uint8Array, offset?: number, encoding?: BufferEncoding) => number
  const proto = Buffer.prototype as Buffer
  const indexOf = proto.indexOf as IndexOf
  const counting: IndexOf = function (value, offset, encoding) {
    const at = indexOf.call(this, value, offset, encoding)
    if (this.buffer === memory.buffer) work.searched += (at === -1 ? this.length : at + 1) - (offset ?? 0)
    return at
  }
  vi.spyOn(proto, 'indexOf').mockImplementation(counting as Buffer['indexOf'])
  const concat = Buffer.concat.bind(Buffer)
  vi.spyOn(Buffer, 'concat').mockImplementation((list, length) => {
    for (const part of list) if (part.buffer === memory.buffer) work.copied += part.length
    return concat(list, length)
  })
  return work
}

/** A content index that records where it was asked to prepare. */
export function preparingIndex() {
  const dirs: string[] = []
  const signals: AbortSignal[] = []
  const searchIndex: SearchIndex = {
    plan: () => Promise.resolve({ kind: 'full-scan', reason: 'no-index', detail: 'none here' }),
    prepare: ({ dir, signal }) => {
      dirs.push(dir)
      signals.push(signal)
      return Promise.resolve()
    },
  }
  return { searchIndex, dirs, signals }
}
