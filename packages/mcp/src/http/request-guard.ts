// Host and Origin checks: a web page that rebinds a DNS name to 127.0.0.1 must not reach the server.
import { isIP } from 'node:net'
import { validateOriginHeader } from '@modelcontextprotocol/server'
import type { ListenAddress } from './listen-address.js'

/** Hostnames that always mean this machine, as a Host or Origin header spells them. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']

/**
 * Checks a request's Host and Origin headers and returns why they are refused, or undefined. A page
 * that rebinds its own DNS name to a loopback address reaches the server with that name as Host, and
 * a browser names the page's site as Origin; so on a specific address only its own name (and the
 * loopback names) may appear in either. A server bound to a wildcard (`0.0.0.0`, `::`) is reached by
 * names it cannot know; there the token, which a page cannot have, keeps pages out, and an Origin must
 * still name the host the request was sent to. Ports are not compared: a page's origin differs in
 * its name, and the name is what rebinding forges.
 */
export function requestGuard(address: ListenAddress): (host: string | undefined, origin: string | undefined) => string | undefined {
  const wildcard = address.host === '0.0.0.0' || address.host === '::'
  const allowed = [...LOOPBACK_NAMES, isIP(address.host) === 6 ? `[${address.host}]` : address.host.toLowerCase()]
  return (host, origin) => {
    const hostname = hostnameOf(host)
    if (hostname === undefined || (!wildcard && !allowed.includes(hostname))) {
      return `Host ${JSON.stringify(host ?? '')} is not this server's address (${allowed.join(', ')})`
    }
    if (!validateOriginHeader(origin, wildcard ? [hostname] : allowed).ok) {
      return `Origin ${JSON.stringify(origin)} is not this server's site; a web page may not call it`
    }
    return undefined
  }
}

/** The hostname a Host header names (`[::1]` bracketed, lower case), or undefined when it is no `name[:port]`. */
function hostnameOf(host: string | undefined): string | undefined {
  // RFC 9110's Host: a reg-name or an IP literal, then an optional port; nothing that could hide another host.
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::\d{0,5})?$/i.exec(host ?? '')
  return match?.[1]!.toLowerCase()
}
