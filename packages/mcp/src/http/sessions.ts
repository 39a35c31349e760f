// The HTTP sessions one server holds: each its own MCP server, spill owner and loaded tools, bounded and expiring.
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { DshMcpServerParts } from '../server.js'

/** One client's session: its server and transport, and how busy it is. */
export interface HttpSession {
  /** The `Mcp-Session-Id` the client sends: random, and never shown anywhere else. */
  id: string
  /** The session's spill owner and registry session: what its results are saved under. */
  owner: string
  transport: WebStandardStreamableHTTPServerTransport
  parts: DshMcpServerParts
  /** HTTP exchanges in progress: a call's response, the client's standing GET stream. */
  open: number
  /** When the last exchange started or ended (ms, the table's clock). */
  lastActive: number
  /** Resolves once the server has closed, its calls have settled and the registry forgot its loads. */
  ended: Promise<void>
}

/** What a session table needs. */
export interface HttpSessionLimits {
  maxSessions: number
  idleMs: number
  /** @default Date.now */
  now?: () => number
}

/**
 * The open sessions. A session is idle when no exchange of it is in progress (a client holding its GET
 * stream open is still there) and none started or ended for `idleMs`; `sweep` ends those. Ending a
 * session closes its server, which aborts its calls, waits for them, and makes the registry forget
 * what it loaded.
 */
export class HttpSessions {
  readonly #sessions = new Map<string, HttpSession>()
  readonly #limits: HttpSessionLimits
  readonly #now: () => number
  #ending = false

  constructor(limits: HttpSessionLimits) {
    this.#limits = limits
    this.#now = limits.now ?? Date.now
  }

  /** Why another session may not open now (the table is full, or ending), or undefined when it may. */
  refusal(): string | undefined {
    if (this.#ending) return 'the server is stopping'
    if (this.#sessions.size < this.#limits.maxSessions) return undefined
    return `${this.#sessions.size} sessions are open, the most this server holds; close one (DELETE) or retry later`
  }

  add(session: HttpSession): void {
    this.#sessions.set(session.id, session)
  }

  get(id: string): HttpSession | undefined {
    return this.#sessions.get(id)
  }

  /** Marks an exchange of the session started; the returned function marks it ended. */
  busy(session: HttpSession): () => void {
    session.open++
    session.lastActive = this.#now()
    return () => {
      session.open--
      session.lastActive = this.#now()
    }
  }

  /** Forgets a session whose server closed (the client sent DELETE, or the table ended it). */
  forget(id: string): void {
    this.#sessions.delete(id)
  }

  /** Ends the idle sessions and resolves once they have ended. */
  async sweep(): Promise<void> {
    const now = this.#now()
    const idle = [...this.#sessions.values()].filter((s) => s.open === 0 && now - s.lastActive >= this.#limits.idleMs)
    await Promise.all(idle.map((session) => this.#end(session)))
  }

  /** Ends every session, and refuses new ones from then on. */
  async endAll(): Promise<void> {
    this.#ending = true
    await Promise.all([...this.#sessions.values()].map((session) => this.#end(session)))
  }

  /** Forgets a session and closes its server (aborting its calls); resolves once it has ended. */
  async #end(session: HttpSession): Promise<void> {
    this.#sessions.delete(session.id)
    await session.parts.server.close()
    await session.ended
  }
}
