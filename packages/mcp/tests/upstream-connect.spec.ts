// connectUpstream against a real Streamable HTTP server: a ping answered while it runs, and not once it is gone.
import { afterEach, describe, expect, it } from 'vitest'
import { connectUpstream } from '../src/upstream/connect.js'
import { HostRouter } from '../src/upstream/host.js'
import { startDshUpstream } from './upstream/dsh-upstream.js'
import { startHttpUpstream } from './upstream/http-upstream.js'
import { budgetMs } from '../../../test-support/budget.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

const options = () => ({
  clientInfo: { name: 'dsh', version: '0' },
  timeoutMs: budgetMs(10_000),
  signal: new AbortController().signal,
  hosts: new HostRouter('up', () => undefined),
  stderr: () => undefined,
})

describe('connectUpstream over HTTP', () => {
  it('speaks 2026-07-28 with a server that does', async () => {
    const inner = await startDshUpstream()
    cleanup.push(() => inner.close())
    const connection = await connectUpstream(
      { name: 'inner', transport: 'http', url: new URL(inner.url), headers: inner.headers },
      options(),
    )
    cleanup.push(() => connection.close())
    expect(connection.protocolVersion).toBe('2026-07-28')
    expect(connection.tools.map((tool) => tool.name)).toContain('echo')
  })

  it('answers a ping while the server runs and reports none once it is gone', async () => {
    const docs = await startHttpUpstream()
    cleanup.push(() => docs.close())
    const connection = await connectUpstream(
      { name: 'docs', transport: 'http', url: new URL(docs.url), headers: {} },
      {
        clientInfo: { name: 'dsh', version: '0' },
        timeoutMs: budgetMs(10_000),
        signal: new AbortController().signal,
        hosts: new HostRouter('docs', () => undefined),
        stderr: () => undefined,
      },
    )
    cleanup.push(() => connection.close())
    expect(connection.tools.map((tool) => tool.name)).toEqual(['docs.search', 'wait'])
    // The probe for 2026-07-28 found a server that answers in a 2025 revision, and the client fell back.
    expect(connection.protocolVersion).toMatch(/^2025-/)
    expect(await connection.ping(budgetMs(5000))).toBe(true)
    await docs.close()
    expect(await connection.ping(budgetMs(5000))).toBe(false)
  })
})
