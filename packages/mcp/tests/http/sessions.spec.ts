import { describe, expect, it } from 'vitest'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { DshMcpServerParts } from '../../src/server.js'
import { HttpSessions, type HttpSession } from '../../src/http/sessions.js'

/** A session whose server records that it was closed; `ended` resolves once it was. */
function fakeSession(id: string, closed: string[]): HttpSession {
  let ended!: () => void
  const parts = {
    server: {
      close: async () => {
        closed.push(id)
        ended()
      },
    },
  } as unknown as DshMcpServerParts
  return {
    id,
    owner: `owner-${id}`,
    transport: {} as WebStandardStreamableHTTPServerTransport,
    parts,
    open: 0,
    lastActive: 0,
    ended: new Promise((resolve) => (ended = resolve)),
  }
}

describe('HttpSessions', () => {
  it('has room until maxSessions are open, and says how many when it has none', () => {
    const sessions = new HttpSessions({ maxSessions: 2, idleMs: 1000, now: () => 0 })
    expect(sessions.refusal()).toBeUndefined()
    sessions.add(fakeSession('a', []))
    expect(sessions.refusal()).toBeUndefined()
    sessions.add(fakeSession('b', []))
    expect(sessions.refusal()).toBe('2 sessions are open, the most this server holds; close one (DELETE) or retry later')
    sessions.forget('a')
    expect(sessions.refusal()).toBeUndefined()
    expect(sessions.get('b')?.owner).toBe('owner-b')
    expect(sessions.get('a')).toBeUndefined()
  })

  it('sweeps a session once idleMs have passed since its last exchange ended, never one with an exchange open', async () => {
    let now = 0
    const closed: string[] = []
    const sessions = new HttpSessions({ maxSessions: 10, idleMs: 1000, now: () => now })
    const [quiet, streaming] = [fakeSession('quiet', closed), fakeSession('streaming', closed)]
    sessions.add(quiet)
    sessions.add(streaming)
    const done = sessions.busy(quiet)
    sessions.busy(streaming)
    now = 500
    done()
    now = 1499
    await sessions.sweep()
    expect(closed).toEqual([])
    now = 1500
    await sessions.sweep()
    expect(closed).toEqual(['quiet'])
    now = 100_000
    await sessions.sweep()
    expect(closed).toEqual(['quiet'])
  })

  it('ends every session at once, and refuses new ones from then on', async () => {
    const closed: string[] = []
    const sessions = new HttpSessions({ maxSessions: 10, idleMs: 1000 })
    sessions.add(fakeSession('a', closed))
    sessions.add(fakeSession('b', closed))
    await sessions.endAll()
    expect(closed.sort()).toEqual(['a', 'b'])
    expect(sessions.refusal()).toBe('the server is stopping')
  })
})
