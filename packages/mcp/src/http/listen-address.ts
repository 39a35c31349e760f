// `HOST:PORT` for `dsh mcp --http`: where to listen, whether that is loopback only, and the URL clients use.
import { isIP } from 'node:net'

/** A parsed listen address. */
export interface ListenAddress {
  /** The host as `listen` takes it: an IP literal (IPv6 without brackets) or a name. */
  host: string
  /** 0 asks the system for a free port. */
  port: number
  /**
   * True when only this machine can connect: 127.0.0.0/8, ::1 or `localhost`. Any other host, a
   * wildcard (`0.0.0.0`, `::`) above all, is reachable from the network and needs a token.
   */
  loopback: boolean
}

/** `HOST:PORT`, or what is wrong with it. */
export type ListenAddressParse = { ok: true; address: ListenAddress } | { ok: false; problem: string }

/** Reads `HOST:PORT`; an IPv6 host is written in brackets (`[::1]:8080`), as in a URL. */
export function parseListenAddress(text: string): ListenAddressParse {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text)
  if (match === null) return { ok: false, problem: `${JSON.stringify(text)} is not HOST:PORT (an IPv6 host in brackets: [::1]:8080)` }
  const host = match[1] ?? match[2]!
  const port = Number(match[3])
  if (port > 65_535) return { ok: false, problem: `port ${port} is above 65535` }
  if (match[1] !== undefined && isIP(host) !== 6) return { ok: false, problem: `[${host}] is not an IPv6 address` }
  return { ok: true, address: { host, port, loopback: isLoopbackHost(host) } }
}

/** Whether a host names this machine only. A name other than `localhost` may resolve anywhere, so it is not. */
export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase()
  if (lower === 'localhost' || lower === '::1') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

/** The MCP endpoint's URL for a host and the port actually bound. */
export function endpointUrl(host: string, port: number): string {
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}${MCP_PATH}`
}

/** The one path the endpoint answers on, as the MCP documentation's examples name it. */
export const MCP_PATH = '/mcp'
