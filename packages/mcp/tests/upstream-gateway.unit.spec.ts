// What the gateway does with a connection, over a fake connect: the edges the real upstreams cannot be made to hit on cue.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, ToolRegistry } from '@dsh/core'
import { startUpstreamGateway, type UpstreamServer } from '@dsh/mcp'
import * as toolSearch from '@dsh/tool-search'
import type { Tool } from '@modelcontextprotocol/server'
import type { UpstreamConnection } from '../src/upstream/connect.js'
import { upstreamToolName } from '../src/upstream/tool-names.js'
import { silentLogger } from './fixtures.js'

const server: UpstreamServer = { name: 'fake', transport: 'stdio', command: 'fake', args: [], env: {} }
const schema = { type: 'object' as const, properties: {} }

/** A connection whose list changes, end and pings a test drives. */
interface FakeConnection extends UpstreamConnection {
  closes: number
  /** What the next ping answers. */
  answers: boolean
  /** Plays the upstream's list_changed, its list read again. */
  changeTools(tools: string[]): void
  /** Plays the connection ending by itself. */
  end(): void
}

const toTool = (tool: string | Tool): Tool => (typeof tool === 'string' ? { name: tool, inputSchema: schema } : tool)

function fakeConnection(tools: (string | Tool)[]): FakeConnection {
  const changed: ((tools: Tool[]) => void)[] = []
  const closed: (() => void)[] = []
  const connection: FakeConnection = {
    closes: 0,
    answers: true,
    tools: tools.map(toTool),
    callTool: () => Promise.resolve({ content: [] }),
    isProtocolError: (_: unknown): _ is { code: number; message: string } => false,
    onToolsChanged: (listener) => void changed.push(listener),
    onClosed: (listener) => void closed.push(listener),
    ping: async () => connection.answers,
    close: async () => void (connection.closes += 1),
    changeTools: (next) => {
      for (const listener of changed) listener(next.map(toTool))
    },
    end: () => {
      for (const listener of closed) listener()
    },
  }
  return connection
}

function registry(): ToolRegistry {
  const r = new ToolRegistry()
  r.register(toolSearch.createToolSearchTool(r))
  return r
}

describe('startUpstreamGateway', () => {
  it('ends a connection whose handshake finished just as the gateway closed, registering none of its tools', async () => {
    const connection = fakeConnection(['a'])
    let finish!: () => void
    const handshake = new Promise<void>((resolve) => (finish = resolve))
    const r = registry()
    const gateway = startUpstreamGateway({
      servers: [server],
      registry: r,
      logger: silentLogger(),
      clientInfo: { name: 'dsh', version: '0' },
      connect: async () => {
        await handshake
        return connection
      },
    })
    const closed = gateway.close()
    finish()
    await closed
    expect(connection.closes).toBe(1)
    expect(r.get('mcp__fake__a')).toBeUndefined()
  })

  it('keeps the first of two tools an upstream lists under one name, and leaves out one it cannot register', async () => {
    const r = registry()
    // Both the plain name and the hashed one are taken: nothing is left for the upstream's "b".
    const taken = upstreamToolName('fake', 'b', () => false)
    const hashed = upstreamToolName('fake', 'b', () => true)
    for (const name of [taken, hashed]) {
      r.register(defineTool({ name, description: '', parameters: z.strictObject({}), execute: async () => ({ content: '' }) }))
    }
    const log = silentLogger()
    const gateway = startUpstreamGateway({
      servers: [server],
      registry: r,
      logger: log,
      clientInfo: { name: 'dsh', version: '0' },
      connect: async () => fakeConnection(['a', 'a', 'b']),
    })
    const changes: number[] = []
    const unsubscribe = gateway.onToolsChanged(() => changes.push(1))
    await gateway.settled
    expect(changes).toEqual([1])
    unsubscribe()
    expect(r.get('mcp__fake__a')?.isMcp).toBe(true)
    expect(log.lines).toEqual([
      'warn: upstream fake lists the tool "a" twice; the first is kept',
      expect.stringMatching(/^warn: upstream fake: tool "b" is left out: a tool named mcp__fake__b_[0-9a-f]{8} is already registered$/),
    ])
    await gateway.close()
  })
})

describe('startUpstreamGateway given hidden text', () => {
  it("quotes an upstream's names in its log lines with hidden characters escaped, and says which tools hid text", async () => {
    const r = registry()
    const log = silentLogger()
    const gateway = startUpstreamGateway({
      servers: [server],
      registry: r,
      logger: log,
      clientInfo: { name: 'dsh', version: '0' },
      connect: async () => fakeConnection(['a\u202e', 'a\u202e', { name: 'b', description: '\u001b[31mred', inputSchema: schema }, 'c']),
    })
    await gateway.settled
    expect(log.lines).toEqual([
      'warn: upstream fake: tool "a\\u202e" (mcp__fake__a_) holds escape sequences or hidden characters; they are removed or shown escaped',
      'warn: upstream fake lists the tool "a\\u202e" twice; the first is kept',
      'warn: upstream fake: tool "b" (mcp__fake__b) holds escape sequences or hidden characters; they are removed or shown escaped',
    ])
    expect(r.get('mcp__fake__b')?.description).toBe('red')
    await gateway.close()
  })
})
