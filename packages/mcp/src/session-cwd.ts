// The directory tool calls run in: --cwd, else what the client names (its first root, or a request's
// `_meta["dsh/cwd"]`), else the configured workspace (or an embedder's fallback), else none.
import { isAbsolute } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from '@dsh/core'
import { ProtocolError, ProtocolErrorCode, type RequestId, type Root, type Server } from '@modelcontextprotocol/server'

/** How long a call waits for a roots/list answer before it runs in the directory already known. */
export const ROOTS_WAIT_MS = 2_000

/**
 * The `_meta` key a 2026-07-28 request names its workspace under (an absolute path); such a request
 * has no roots to ask for. `--cwd` overrides it.
 */
export const CWD_META = 'dsh/cwd'

/** The call a cwd is asked for. */
export interface CwdCall {
  /** The call's signal: aborting it ends any wait. */
  signal: AbortSignal
  /** The call's `params._meta`. */
  meta?: Record<string, unknown> | undefined
  /** The call's JSON-RPC id: a roots/list asked for it travels with its response (over HTTP, on its stream). */
  requestId?: RequestId
}

/** Where a call runs. */
export interface SessionCwd {
  /** The cwd for a call arriving now; rejects with Invalid params when nobody named a workspace. */
  current(call: CwdCall): Promise<string>
}

/** What `followClientRoots` needs besides the server. */
export interface FollowRootsOptions {
  /** Where calls run while the client names no root; undefined: nowhere, and a call says how to name one. */
  fallbackCwd: string | undefined
  logger: Logger
  /** @default ROOTS_WAIT_MS */
  rootsWaitMs?: number
  /** Told each directory calls will run in as the client names it, and the fallback for a client that names none. */
  onCwd?: (cwd: string) => void
}

/** A cwd the host chose: client roots and `_meta` are ignored. */
export function fixedCwd(cwd: string): SessionCwd {
  return { current: () => Promise.resolve(cwd) }
}

/**
 * The cwd of a 2026-07-28 request: its `_meta["dsh/cwd"]` when that is an absolute path, else
 * `fallbackCwd`; with neither, a call fails with Invalid params saying how to name one, rather than
 * searching the directory the server happened to start in.
 */
export function requestCwd(fallbackCwd: string | undefined): SessionCwd {
  return {
    current: ({ meta }) => {
      const named = meta?.[CWD_META]
      if (typeof named === 'string' && isAbsolute(named)) return Promise.resolve(named)
      return fallbackCwd === undefined ? Promise.reject(noWorkspace('modern')) : Promise.resolve(fallbackCwd)
    },
  }
}

/**
 * A cwd that follows the client's roots: asked for once the client is initialized and again whenever it
 * says they changed; a client that did not declare the roots capability is never asked. While a
 * roots/list is unanswered a call waits for it (at most `rootsWaitMs`), so the first call does not run
 * in the wrong directory. A call that finds no answer yet asks again with the call's own request id:
 * over HTTP a question sent before the client opened its event stream is lost, and one related to a
 * call travels on that call's response stream. With no usable root and no fallback, a call fails
 * saying how to name one.
 */
export function followClientRoots(server: Server, options: FollowRootsOptions): SessionCwd {
  let cwd = options.fallbackCwd
  let pending: Promise<void> | undefined
  let asked = 0
  let answered = false
  // The deprecated accessor is where a 2025-era connection's declared capabilities live.
  const declared = (): boolean => server.getClientCapabilities()?.roots !== undefined
  const ask = (relatedRequestId?: RequestId): void => {
    if (!declared()) return
    const question = ++asked
    const query = server.listRoots(undefined, relatedRequestId === undefined ? {} : { relatedRequestId }).then(
      ({ roots }) => {
        answered = true
        // An answer to an older question must not override a newer one.
        if (question !== asked) return
        cwd = firstDirectory(roots) ?? options.fallbackCwd
        if (cwd !== undefined) options.onCwd?.(cwd)
      },
      // The SDK rejects with its own errors: the client's answer, a timeout, a closed connection.
      (error: Error) =>
        options.logger.warn(`mcp: roots/list failed (${error.message}); tools run in ${cwd ?? 'no workspace until one is named'}`),
    )
    pending = query
    void query.finally(() => {
      if (pending === query) pending = undefined
    })
  }
  server.oninitialized = () => {
    if (declared()) return ask()
    if (cwd !== undefined) options.onCwd?.(cwd)
  }
  server.setNotificationHandler('notifications/roots/list_changed', () => ask())
  return {
    current: async ({ signal, requestId }) => {
      if (!answered && requestId !== undefined) ask(requestId)
      if (pending !== undefined) await settleWithin(pending, options.rootsWaitMs ?? ROOTS_WAIT_MS, signal)
      if (cwd === undefined) throw noWorkspace('legacy')
      return cwd
    },
  }
}

/** The error of a call that has no workspace to run in, saying every way to name one. */
function noWorkspace(era: 'legacy' | 'modern'): ProtocolError {
  const client =
    era === 'legacy'
      ? 'the client named no file:// root (MCP roots)'
      : `a 2026-07-28 request has no roots, and this one sent no _meta["${CWD_META}"]`
  const fix = era === 'legacy' ? 'use a client that sends roots' : `send _meta["${CWD_META}"] with an absolute path`
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `no workspace to search: dsh mcp was started without --cwd, the config sets no mcp.workspace, and ${client}; ${fix}, start dsh mcp with --cwd DIR, or set {"mcp": {"workspace": "/abs/dir"}} in its --config file`,
  )
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

/** Resolves once `promise` settles, `ms` pass, or `signal` aborts, whichever comes first. */
export function settleWithin(promise: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
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
