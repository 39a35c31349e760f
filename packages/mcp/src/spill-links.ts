// The spilled results this server produced, each under a dsh-spill:// URI that resources/read serves.
import type { ResourceLink } from '@modelcontextprotocol/server'

/**
 * The URI template the spill resources follow, as `resources/templates/list` shows it: the spill
 * owner and the store's name for the file, which any process using the same store can look up.
 */
export const SPILL_URI_TEMPLATE = 'dsh-spill://{session}/{name}'

/** The owner and file name a `dsh-spill://` URI names, decoded, or undefined for any other URI. */
export function parseSpillUri(uri: string): { owner: string; name: string } | undefined {
  const match = /^dsh-spill:\/\/([^/?#]+)\/([^/?#]+)$/.exec(uri)
  if (match === null) return undefined
  try {
    return { owner: decodeURIComponent(match[1]!), name: decodeURIComponent(match[2]!) }
  } catch {
    // A malformed percent escape names nothing.
    return undefined
  }
}

/**
 * Maps the URIs this server issued to spill-store locators. A URI not found here is looked up in the
 * store by its owner and name (`parseSpillUri`), so a client can name a result some server handed it
 * but never a path of its choosing.
 */
export class SpillLinks {
  readonly #session: string
  readonly #locators = new Map<string, string>()
  readonly #links = new Map<string, ResourceLink>()

  constructor(session: string) {
    this.#session = session
  }

  /** The resource link for a locator; the same locator always gets the same link. */
  link(locator: string): ResourceLink {
    const known = this.#links.get(locator)
    if (known !== undefined) return known
    const base = locator.split(/[\\/]/).at(-1) || 'result.txt'
    let name = base
    // Two stores' locators can end alike; the URI must still name exactly one of them.
    for (let n = 2; this.#locators.has(this.#uri(name)); n++) name = `${n}-${base}`
    const link: ResourceLink = {
      type: 'resource_link',
      uri: this.#uri(name),
      name,
      description: 'The complete result; the call showed a capped page of it.',
      mimeType: 'text/plain',
    }
    this.#locators.set(link.uri, locator)
    this.#links.set(locator, link)
    return link
  }

  /** The locator behind a URI this server issued, or undefined for any other URI. */
  locator(uri: string): string | undefined {
    return this.#locators.get(uri)
  }

  /** Every link issued so far, oldest first. */
  list(): ResourceLink[] {
    return [...this.#links.values()]
  }

  #uri(name: string): string {
    return `dsh-spill://${encodeURIComponent(this.#session)}/${encodeURIComponent(name)}`
  }
}
