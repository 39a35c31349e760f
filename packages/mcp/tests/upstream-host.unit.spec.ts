import { ProtocolError, type ServerContext, type Server } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import {
  currentHostCall,
  hostCallOf,
  hostPeerOf,
  HostRouter,
  missingCapability,
  withHostCall,
  type HostCall,
} from '../src/upstream/host.js'

/** A host offering `capabilities` that answers every request with its method, and records it. */
function fakeHost(capabilities: Parameters<typeof missingCapability>[0]): HostCall & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    capabilities: () => capabilities,
    request: async (method) => {
      asked.push(method)
      return { answered: method }
    },
    progressSent: async () => undefined,
  }
}

describe('missingCapability', () => {
  it.each([
    [undefined, 'sampling/createMessage', undefined, 'sampling'],
    [{ sampling: {} }, 'sampling/createMessage', { messages: [] }, undefined],
    [{ sampling: {} }, 'sampling/createMessage', { tools: [] }, 'sampling with tools'],
    [{ sampling: { tools: {} } }, 'sampling/createMessage', { tools: [] }, undefined],
    [{}, 'roots/list', undefined, 'roots'],
    [{ roots: {} }, 'roots/list', undefined, undefined],
    [{}, 'elicitation/create', { message: 'x' }, 'elicitation'],
    // An empty object is form mode, as the spec's earlier revision declared it.
    [{ elicitation: {} }, 'elicitation/create', { message: 'x' }, undefined],
    [{ elicitation: {} }, 'elicitation/create', { mode: 'url' }, 'elicitation in url mode'],
    [{ elicitation: { url: {} } }, 'elicitation/create', { mode: 'url' }, undefined],
    [{ elicitation: { url: {} } }, 'elicitation/create', { mode: 'form' }, 'elicitation in form mode'],
    [{ elicitation: { form: {}, url: {} } }, 'elicitation/create', { mode: 'form' }, undefined],
  ] as const)('given %j, %s %j needs %s', (capabilities, method, params, missing) => {
    expect(missingCapability(capabilities, method, params)).toBe(missing)
  })
})

describe('HostRouter', () => {
  it('sends a request to the host whose call to the upstream started last, else to the host connected last', async () => {
    const connected = fakeHost({ roots: {} })
    const first = fakeHost({ roots: {} })
    const second = fakeHost({ roots: {} })
    const router = new HostRouter('docs', () => connected)
    const signal = new AbortController().signal
    await router.forward('roots/list', undefined, signal)
    let finishSecond!: () => void
    await router.during(first, async () => {
      const running = router.during(second, () => new Promise<void>((resolve) => (finishSecond = resolve)))
      await router.forward('roots/list', undefined, signal)
      finishSecond()
      await running
      await router.forward('roots/list', undefined, signal)
    })
    expect([connected.asked, first.asked, second.asked]).toEqual([['roots/list'], ['roots/list'], ['roots/list']])
    expect(await router.during(undefined, async () => 'ran without a host')).toBe('ran without a host')
  })

  it('refuses a request, saying why, when no host is connected or the host does not offer it', async () => {
    const signal = new AbortController().signal
    const alone = new HostRouter('docs', () => undefined)
    const refusal = await alone.forward('roots/list', undefined, signal).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(ProtocolError)
    expect(refusal).toMatchObject({
      code: -32601,
      message: expect.stringContaining('roots/list from the MCP server docs: no MCP host is connected to the dsh gateway yet'),
    })
    const bare = new HostRouter('docs', () => fakeHost({}))
    await expect(bare.forward('elicitation/create', { message: 'x' }, signal)).rejects.toThrow(
      'elicitation/create from the MCP server docs: the MCP host connected to the dsh gateway does not offer elicitation, so the request cannot be answered',
    )
  })
})

describe('withHostCall', () => {
  it('finds the host inside the call, across awaits, and none outside', async () => {
    const host = fakeHost({})
    expect(currentHostCall()).toBeUndefined()
    await withHostCall(host, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1))
      expect(currentHostCall()).toBe(host)
    })
  })
})

describe('hostCallOf and hostPeerOf', () => {
  function fakes() {
    const sent: unknown[] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const server = {
      getClientCapabilities: () => ({ sampling: {} }),
      request: async (request: unknown, options: unknown) => ({ request, options }),
    } as unknown as Server
    const ctx = {
      mcpReq: {
        send: async (request: unknown) => ({ sentOnCall: request }),
        notify: async (notification: { params: { progress: number } }) => {
          if (notification.params.progress === 1) await gate
          sent.push(notification)
          if (notification.params.progress === 3) throw new Error('stream closed')
        },
      },
    } as unknown as ServerContext
    return { server, ctx, sent, release }
  }

  it("sends progress under the host's token, in order, and says when all has gone; a failed send is let go", async () => {
    const { server, ctx, sent, release } = fakes()
    const call = hostCallOf(server, { _meta: { progressToken: 'host-7' } }, ctx)
    expect(call.capabilities()).toEqual({ sampling: {} })
    call.progress!({ progress: 1, total: 3 })
    call.progress!({ progress: 2, total: 3 })
    call.progress!({ progress: 3, total: 3 })
    const all = call.progressSent()
    release()
    await all
    expect(sent).toEqual(
      [1, 2, 3].map((progress) => ({ method: 'notifications/progress', params: { progress, total: 3, progressToken: 'host-7' } })),
    )
    expect(await call.request('roots/list', undefined, new AbortController().signal)).toEqual({ sentOnCall: { method: 'roots/list' } })
    expect(await call.request('elicitation/create', { message: 'm' }, new AbortController().signal)).toEqual({
      sentOnCall: { method: 'elicitation/create', params: { message: 'm' } },
    })
  })

  it('asks for no progress when the host gave no token, and reaches a host outside a call through the server', async () => {
    const { server, ctx } = fakes()
    expect(hostCallOf(server, {}, ctx).progress).toBeUndefined()
    const peer = hostPeerOf(server)
    expect(peer.capabilities()).toEqual({ sampling: {} })
    const signal = new AbortController().signal
    expect(await peer.request('roots/list', undefined, signal)).toMatchObject({ request: { method: 'roots/list' } })
    expect(await peer.request('sampling/createMessage', { messages: [] }, signal)).toMatchObject({
      request: { method: 'sampling/createMessage', params: { messages: [] } },
      options: { signal, timeout: 30 * 60_000 },
    })
  })
})
