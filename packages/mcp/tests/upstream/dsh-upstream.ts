// dsh itself served over Streamable HTTP as an upstream: a server that speaks 2026-07-28, whose tools a test changes.
import { parseListenAddress, serveMcpHttp } from '@dsh/mcp'
import type { Harness } from '@dsh/core'
import { silentLogger, testHarness } from '../fixtures.js'

/** The running server: its harness, where it listens, the token it wants, and a way to say its tools changed. */
export interface DshUpstream {
  harness: Harness
  url: string
  headers: Record<string, string>
  /** Tells the server its tools changed, as a gateway in it would. */
  toolsChanged(): void
  close(): Promise<void>
}

/** Serves the test harness's tools on 127.0.0.1 (an ephemeral port). */
export async function startDshUpstream(): Promise<DshUpstream> {
  const { harness } = await testHarness()
  const listeners = new Set<() => void>()
  const address = parseListenAddress('127.0.0.1:0')
  if (!address.ok) throw new Error(address.problem)
  const token = 'inner-token-0123456789'
  const stop = new AbortController()
  let listening!: (url: string) => void
  const url = new Promise<string>((resolve) => (listening = resolve))
  const served = serveMcpHttp({
    harness,
    toolChanges: { onToolsChanged: (listener) => (listeners.add(listener), () => void listeners.delete(listener)) },
    cwd: '/inner',
    fallbackCwd: '/inner',
    session: 'inner',
    name: 'inner',
    version: '1',
    logger: silentLogger(),
    address: address.address,
    token,
    signal: stop.signal,
    onListening: listening,
  })
  return {
    harness,
    url: await url,
    headers: { Authorization: `Bearer ${token}` },
    toolsChanged: () => {
      for (const listener of listeners) listener()
    },
    close: async () => {
      stop.abort()
      await served
    },
  }
}
