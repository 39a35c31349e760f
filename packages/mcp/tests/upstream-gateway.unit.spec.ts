// What the gateway does with a connection, over a fake connect: the edges the real upstreams cannot be made to hit on cue.
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { defineTool, ToolRegistry } from '@dsh/core'
import { startUpstreamGateway, type UpstreamServer } from '@dsh/mcp'
import * as toolSearch from '@dsh/tool-search'
import type { Server, Tool } from '@modelcontextprotocol/server'
import type { ToolsChange, UpstreamConnection } from '../src/upstream/connect.js'
import type { HostRouter } from '../src/upstream/host.js'
import { upstreamToolName } from '../src/upstream/tool-names.js'
import { silentLogger } from './fixtures.js'

const server: UpstreamServer = { name: 'fake', transport: 'stdio', command: 'fake', args: [], env: {} }
const schema = { type: 'object' as const, properties: {} }

/** A connection whose list changes, end and pings a test drives. */
interface FakeConnection extends UpstreamConnection {
  closes: number
  /** What the next ping answers. */
  answers: boolean
  /** Plays the upstream's list_changed, its list read again (or the read failing, given an error). */
  changeTools(tools: string[] | Error): void
  /** Plays the connection ending by itself. */
  end(): void
}

const toTool = (tool: string | Tool): Tool => (typeof tool === 'string' ? { name: tool, inputSchema: schema } : tool)

function fakeConnection(tools: (string | Tool)[]): FakeConnection {
  const changed: ((change: ToolsChange) => void)[] = []
  const closed: (() => void)[] = []
  const connection: FakeConnection = {
    closes: 0,
    answers: true,
    tools: tools.map(toTool),
    protocolVersion: '2025-11-25',
    callTool: () => Promise.resolve({ content: [] }),
    isProtocolError: (_: unknown): _ is { code: number; message: string } => false,
    onToolsChanged: (listener) => void changed.push(listener),
    onClosed: (listener) => void closed.push(listener),
    ping: async () => connection.answers,
    close: async () => void (connection.closes += 1),
    changeTools: (next) => {
      const change: ToolsChange = next instanceof Error ? { ok: false, error: next } : { ok: true, tools: next.map(toTool) }
      for (const listener of changed) listener(change)
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

describe('startUpstreamGateway following a connection', () => {
  const http: UpstreamServer = { name: 'web', transport: 'http', url: new URL('http://127.0.0.1:1/mcp'), headers: {} }
  const until = async (check: () => boolean) => {
    for (let tries = 0; !check() && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 2))
    expect(check()).toBe(true)
  }

  it("re-registers an upstream's changed list, announcing each change once, and keeps it when a read fails", async () => {
    const r = registry()
    const log = silentLogger()
    const connection = fakeConnection(['a', 'b'])
    const gateway = startUpstreamGateway({
      servers: [server],
      registry: r,
      logger: log,
      clientInfo: { name: 'dsh', version: '0' },
      connect: async () => connection,
    })
    await gateway.settled
    r.loadDeferred('s1', ['mcp__fake__a', 'mcp__fake__b'])
    const changes: number[] = []
    gateway.onToolsChanged(() => changes.push(1))
    connection.changeTools(['b', 'c'])
    expect(changes).toEqual([1])
    expect(r.get('mcp__fake__a')).toBeUndefined()
    expect(r.get('mcp__fake__c')).toBeDefined()
    expect(r.loadedDeferred('s1')).toEqual(['mcp__fake__b'])
    connection.changeTools(new Error('tools/list timed out'))
    expect(changes).toEqual([1])
    expect(r.get('mcp__fake__c')).toBeDefined()
    expect(log.lines).toEqual([
      'warn: upstream fake said its tools changed, but listing them again failed: tools/list timed out; its 2 tools stay as they were',
    ])
    await gateway.close()
  })

  it('drops the tools of an HTTP upstream whose ping fails, retries until it connects, and gives loads back', async () => {
    const r = registry()
    const log = silentLogger()
    const first = fakeConnection(['a'])
    const second = fakeConnection(['a'])
    let attempts = 0
    const gateway = startUpstreamGateway({
      servers: [http],
      registry: r,
      logger: log,
      clientInfo: { name: 'dsh', version: '0' },
      healthIntervalMs: 5,
      retry: { minMs: 1, maxMs: 4 },
      connect: async () => {
        attempts += 1
        if (attempts === 1) return first
        if (attempts < 4) throw new Error('ECONNREFUSED')
        return second
      },
    })
    await gateway.settled
    r.loadDeferred('s1', ['mcp__web__a'])
    r.loadDeferred('s2', ['mcp__web__a'])
    first.answers = false
    await until(() => r.get('mcp__web__a') === undefined)
    expect(first.closes).toBe(1)
    // A session that ended meanwhile gets nothing back.
    r.forgetSession('s2')
    await until(() => r.get('mcp__web__a') !== undefined)
    expect(r.loadedDeferred('s1')).toEqual(['mcp__web__a'])
    expect(r.sessionsWithLoads()).toEqual(['s1'])
    expect(log.lines).toEqual([
      'warn: upstream web stopped answering (no reply to a ping within 5 ms); its 1 tools are removed',
      'info: upstream web still unreachable: ECONNREFUSED; retrying',
      'info: upstream web still unreachable: ECONNREFUSED; retrying',
      'warn: upstream web is back; its 1 tools are restored',
    ])
    // Gone again by itself, then the gateway closes while it waits to retry.
    second.end()
    await until(() => r.get('mcp__web__a') === undefined)
    await gateway.close()
    expect(attempts).toBeLessThanOrEqual(5)
  })

  it('stops following a connection that is serving when the gateway closes, and writes stderr to its own by default', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const connection = fakeConnection(['a'])
      const gateway = startUpstreamGateway({
        servers: [http],
        registry: registry(),
        logger: silentLogger(),
        clientInfo: { name: 'dsh', version: '0' },
        connect: async (_, options) => {
          options.stderr('[web] hello\n')
          return connection
        },
      })
      await gateway.settled
      expect(write).toHaveBeenCalledWith('[web] hello\n')
      await gateway.close()
      expect(connection.closes).toBe(1)
    } finally {
      write.mockRestore()
    }
  })
})

describe('startUpstreamGateway options', () => {
  it('leaves call_tool out when asked, for hosts that fetch the list again', async () => {
    const r = registry()
    const gateway = startUpstreamGateway({
      servers: [],
      registry: r,
      logger: silentLogger(),
      clientInfo: { name: 'dsh', version: '0' },
      callTool: false,
    })
    await gateway.settled
    expect(r.get('call_tool')).toBeUndefined()
    await gateway.close()
  })

  it('ignores a ping that fails only after the connection already ended by itself', async () => {
    const r = registry()
    const connection = fakeConnection(['a'])
    let answer!: (answered: boolean) => void
    let pinged = false
    connection.ping = () => {
      pinged = true
      return new Promise((resolve) => (answer = resolve))
    }
    const log = silentLogger()
    const gateway = startUpstreamGateway({
      servers: [{ name: 'web', transport: 'http', url: new URL('http://127.0.0.1:1/mcp'), headers: {} }],
      registry: r,
      logger: log,
      clientInfo: { name: 'dsh', version: '0' },
      healthIntervalMs: 1,
      retry: { minMs: 60_000, maxMs: 60_000 },
      connect: async () => connection,
    })
    await gateway.settled
    for (let tries = 0; !pinged && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 2))
    // The interval comes round while the first ping is out: no second ping is sent.
    let pings = 0
    connection.ping = () => (pings++, new Promise(() => undefined))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(pings).toBe(0)
    connection.end()
    answer(false)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(connection.closes).toBe(0)
    expect(log.lines).toEqual(['warn: upstream web closed its connection; its 1 tools are removed'])
    await gateway.close()
  })
})

describe('startUpstreamGateway and the hosts attached to it', () => {
  it("sends an upstream's request outside a call to the host attached last, and to none once it detached", async () => {
    let hosts!: HostRouter
    const gateway = startUpstreamGateway({
      servers: [server],
      registry: registry(),
      logger: silentLogger(),
      clientInfo: { name: 'dsh', version: '0' },
      connect: async (_, options) => {
        hosts = options.hosts
        return fakeConnection([])
      },
    })
    await gateway.settled
    const asked: string[] = []
    const host = (name: string) =>
      ({
        getClientCapabilities: () => ({ roots: {} }),
        request: async (request: { method: string }) => (asked.push(`${name} ${request.method}`), { roots: [] }),
      }) as unknown as Server
    const signal = new AbortController().signal
    const detachFirst = gateway.attachHost(host('first'))
    const detachSecond = gateway.attachHost(host('second'))
    await hosts.forward('roots/list', undefined, signal)
    detachSecond()
    await hosts.forward('roots/list', undefined, signal)
    detachFirst()
    await expect(hosts.forward('roots/list', undefined, signal)).rejects.toThrow(/no MCP host is connected to the dsh gateway yet/)
    expect(asked).toEqual(['second roots/list', 'first roots/list'])
    await gateway.close()
  })
})
