// connectUpstream against a real Streamable HTTP server: a ping answered while it runs, and not once it is gone.
import { afterEach, describe, expect, it } from 'vitest'
import { connectUpstream } from '../src/upstream/connect.js'
import { HostRouter } from '../src/upstream/host.js'
import { startHttpUpstream } from './upstream/http-upstream.js'
import { budgetMs } from '../../../test-support/budget.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

describe('connectUpstream over HTTP', () => {
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
    expect(await connection.ping(budgetMs(5000))).toBe(true)
    await docs.close()
    expect(await connection.ping(budgetMs(5000))).toBe(false)
  })
})
