// The MCP host as the gateway's upstreams reach it: a call's progress goes back to it, and their sampling, elicitation and roots requests are forwarded to it.
import { AsyncLocalStorage } from 'node:async_hooks'
import {
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type Progress,
  type ProgressToken,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server'

/** The requests an upstream may send its client, which the gateway hands to the host. */
export const HOST_REQUEST_METHODS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const

/** One of them. */
export type HostRequestMethod = (typeof HOST_REQUEST_METHODS)[number]

/**
 * How long the host may take to answer a forwarded request, in ms: an elicitation waits on a person and
 * a sampling request on a model, as long as the call they belong to may run (UPSTREAM_CALL_TIMEOUT_MS).
 */
export const HOST_REQUEST_TIMEOUT_MS = 30 * 60_000

/** A host connected to the gateway's server: what it offers, and a way to ask it something. */
export interface HostPeer {
  /** The capabilities the host declared in its `initialize`; undefined before it has. */
  capabilities(): ClientCapabilities | undefined
  /** Sends one request to the host and resolves with its result. */
  request(method: HostRequestMethod, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<unknown>
}

/** The host's tools/call that a forwarded call runs under: its requests relate to that call, and its progress goes back under the host's token. */
export interface HostCall extends HostPeer {
  /** Sends the host a progress notification for its call; undefined when the call asked for none. */
  progress?: (progress: Progress) => void
  /** Resolves once every progress notification sent so far has gone: a host drops one that comes after the result. */
  progressSent(): Promise<void>
}

const current = new AsyncLocalStorage<HostCall>()

/** Runs a host's tools/call so that a forwarded call inside it (directly or through call_tool) finds its host. */
export function withHostCall<T>(host: HostCall, run: () => T): T {
  return current.run(host, run)
}

/** The host's call the running code serves, when it serves one. */
export function currentHostCall(): HostCall | undefined {
  return current.getStore()
}

/** A host's tools/call as the gateway reaches it: requests and progress ride on the call's own stream. */
export function hostCallOf(
  server: Server,
  params: { _meta?: { progressToken?: ProgressToken | undefined } | undefined },
  ctx: ServerContext,
): HostCall {
  const token = params._meta?.progressToken
  // Each notification goes after the one before, and the result after them all.
  let sent = Promise.resolve()
  return {
    capabilities: () => server.getClientCapabilities(),
    request: (method, request, signal) =>
      ctx.mcpReq.send({ method, ...(request === undefined ? {} : { params: request }) }, { signal, timeout: HOST_REQUEST_TIMEOUT_MS }),
    progressSent: () => sent,
    ...(token === undefined
      ? {}
      : {
          progress: (progress: Progress) => {
            const notification = { method: 'notifications/progress' as const, params: { ...progress, progressToken: token } }
            sent = sent.then(() => ctx.mcpReq.notify(notification)).catch(() => undefined)
          },
        }),
  }
}

/** A connected host outside any call, for a request an upstream sends between calls (roots/list after its handshake). */
export function hostPeerOf(server: Server): HostPeer {
  return {
    capabilities: () => server.getClientCapabilities(),
    request: (method, params, signal) =>
      server.request({ method, ...(params === undefined ? {} : { params }) }, { signal, timeout: HOST_REQUEST_TIMEOUT_MS }),
  }
}

/**
 * Where one upstream's requests go: to the host whose forwarded call to it started last and is still
 * running (an upstream asks during a call, and over stdio nothing says which), else to the host that
 * connected last. A request the host does not offer the capability for is refused, saying so.
 */
export class HostRouter {
  readonly #calls: HostCall[] = []

  constructor(
    readonly server: string,
    private readonly connectedHost: () => HostPeer | undefined,
  ) {}

  /** Runs a forwarded call with its host counted as the one the upstream's requests go to meanwhile. */
  async during<T>(host: HostCall | undefined, run: () => Promise<T>): Promise<T> {
    if (host === undefined) return run()
    this.#calls.push(host)
    try {
      return await run()
    } finally {
      this.#calls.splice(this.#calls.lastIndexOf(host), 1)
    }
  }

  /** Forwards the upstream's request to its host, or refuses it with a protocol error that says why. */
  async forward(method: HostRequestMethod, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<unknown> {
    const host = this.#calls.at(-1) ?? this.connectedHost()
    if (host === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `${method} from the MCP server ${this.server}: no MCP host is connected to the dsh gateway yet to answer it`,
      )
    }
    const missing = missingCapability(host.capabilities(), method, params)
    if (missing !== undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `${method} from the MCP server ${this.server}: the MCP host connected to the dsh gateway does not offer ${missing}, so the request cannot be answered`,
      )
    }
    return host.request(method, params, signal)
  }
}

/** What the host would have to declare to answer the request, when it has not; undefined when it may. */
export function missingCapability(
  capabilities: ClientCapabilities | undefined,
  method: HostRequestMethod,
  params: Record<string, unknown> | undefined,
): string | undefined {
  switch (method) {
    case 'sampling/createMessage':
      if (capabilities?.sampling === undefined) return 'sampling'
      if (params?.tools !== undefined && capabilities.sampling.tools === undefined) return 'sampling with tools'
      return undefined
    case 'roots/list':
      return capabilities?.roots === undefined ? 'roots' : undefined
    case 'elicitation/create': {
      const elicitation = capabilities?.elicitation
      if (elicitation === undefined) return 'elicitation'
      // An empty object is form mode, as the spec's earlier revision declared it.
      const url = params?.mode === 'url'
      const offered = url ? elicitation.url !== undefined : elicitation.form !== undefined || elicitation.url === undefined
      return offered ? undefined : `elicitation in ${url ? 'url' : 'form'} mode`
    }
  }
}
