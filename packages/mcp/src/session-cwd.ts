// The directory tool calls run in: --cwd, else the client's first file:// root, else the process cwd.
import { fileURLToPath } from 'node:url'
import type { Logger } from '@dsh/core'
import { ProtocolError, ProtocolErrorCode, type Root, type Server } from '@modelcontextprotocol/server'

/** How long a call waits for a roots/list answer before it runs in the directory already known. */
export const ROOTS_WAIT_MS = 2_000

/** Where a call runs. */
export interface SessionCwd {
  /** The cwd for a call arriving now; `signal` is the call's, and aborting it ends any wait. */
  current(signal: AbortSignal): Promise<string>
}

/** What `followClientRoots` needs besides the server. */
export interface FollowRootsOptions {
  fallbackCwd: string
  logger: Logger
  /** @default ROOTS_WAIT_MS */
  rootsWaitMs?: number
}

/** A cwd the host chose: client roots are ignored. */
export function fixedCwd(cwd: string): SessionCwd {
  return { current: () => Promise.resolve(cwd) }
}

/**
 * No cwd at all: the host named none and the client cannot (a 2026-07-28 request has no roots to
 * ask for). A call fails with Invalid params and `message`, which says how to name one, rather than
 * searching the directory the server happened to start in.
 */
export function unnamedCwd(message: string): SessionCwd {
  return { current: () => Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidParams, message)) }
}

/**
 * A cwd that follows the client's roots: asked for once the client is initialized and again whenever it
 * says they changed; a client that did not declare the roots capability is never asked. While a
 * roots/list is unanswered a call waits for it (at most `rootsWaitMs`), so the first call does not run
 * in the wrong directory.
 */
export function followClientRoots(server: Server, options: FollowRootsOptions): SessionCwd {
  let cwd = options.fallbackCwd
  let pending: Promise<void> | undefined
  let asked = 0
  const ask = (): void => {
    // The deprecated accessor is where a 2025-era connection's declared capabilities live.
    if (server.getClientCapabilities()?.roots === undefined) return
    const question = ++asked
    const query = server.listRoots().then(
      ({ roots }) => {
        // An answer to an older question must not override a newer one.
        if (question === asked) cwd = firstDirectory(roots) ?? options.fallbackCwd
      },
      // The SDK rejects with its own errors: the client's answer, a timeout, a closed connection.
      (error: Error) => options.logger.warn(`mcp: roots/list failed (${error.message}); tools run in ${cwd}`),
    )
    pending = query
    void query.finally(() => {
      if (pending === query) pending = undefined
    })
  }
  server.oninitialized = ask
  server.setNotificationHandler('notifications/roots/list_changed', ask)
  return {
    current: async (signal) => {
      if (pending !== undefined) await settleWithin(pending, options.rootsWaitMs ?? ROOTS_WAIT_MS, signal)
      return cwd
    },
  }
}

/** The path of the first root that is a local file URL. */
function firstDirectory(roots: readonly Root[]): string | undefined {
  for (const root of roots) {
    try {
      return fileURLToPath(root.uri)
    } catch {
      // Not a file URL, or one naming another host: no local directory to run in.
    }
  }
  return undefined
}

function settleWithin(promise: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    void promise.then(done)
  })
}
