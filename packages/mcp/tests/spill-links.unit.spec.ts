import { describe, expect, it } from 'vitest'
import { SpillLinks } from '../src/spill-links.js'

describe('SpillLinks', () => {
  it('names a locator by its file name under the session, and maps the URI back', () => {
    const links = new SpillLinks('mcp')
    const link = links.link('/spill/mcp/0001-grep-results.txt')
    expect(link).toMatchObject({
      type: 'resource_link',
      uri: 'dsh-spill://mcp/0001-grep-results.txt',
      name: '0001-grep-results.txt',
      mimeType: 'text/plain',
    })
    expect(links.locator(link.uri)).toBe('/spill/mcp/0001-grep-results.txt')
  })

  it('gives the same locator the same link, and lists each once', () => {
    const links = new SpillLinks('mcp')
    expect(links.link('/a/x.txt')).toBe(links.link('/a/x.txt'))
    expect(links.list().map((l) => l.uri)).toEqual(['dsh-spill://mcp/x.txt'])
  })

  it('keeps two locators with the same file name apart', () => {
    const links = new SpillLinks('mcp')
    const uris = ['/a/x.txt', 'C:\\b\\x.txt', '/c/x.txt'].map((locator) => links.link(locator).uri)
    expect(uris).toEqual(['dsh-spill://mcp/x.txt', 'dsh-spill://mcp/2-x.txt', 'dsh-spill://mcp/3-x.txt'])
    expect(uris.map((uri) => links.locator(uri))).toEqual(['/a/x.txt', 'C:\\b\\x.txt', '/c/x.txt'])
  })

  it('encodes the session and the name, and names a locator without a file name', () => {
    const links = new SpillLinks('my session/1')
    expect(links.link('/spill/a b#.txt').uri).toBe('dsh-spill://my%20session%2F1/a%20b%23.txt')
    expect(links.link('/spill/dir/').name).toBe('result.txt')
  })

  it('knows no locator for a URI it did not issue', () => {
    const links = new SpillLinks('mcp')
    links.link('/spill/mcp/x.txt')
    expect(links.locator('dsh-spill://mcp/y.txt')).toBeUndefined()
    expect(links.locator('/spill/mcp/x.txt')).toBeUndefined()
  })
})
