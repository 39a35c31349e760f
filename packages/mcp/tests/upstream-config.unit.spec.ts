import { describe, expect, it } from 'vitest'
import { parseUpstreamConfig, UPSTREAM_CONFIG_MAX_BYTES } from '@dsh/mcp'

const parse = (value: unknown) => parseUpstreamConfig(typeof value === 'string' ? value : JSON.stringify(value), 'servers.json')

describe('parseUpstreamConfig', () => {
  it('reads stdio and Streamable HTTP servers in the shape Claude Desktop and Cursor use, ignoring keys it does not use', () => {
    expect(
      parse({
        mcpServers: {
          github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: 't' }, disabled: false },
          local: { type: 'stdio', command: '/opt/srv', cwd: '/tmp' },
          docs: { type: 'http', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer x' } },
          plain: { url: 'http://127.0.0.1:9/mcp' },
        },
        globalShortcut: 'x',
      }),
    ).toEqual([
      {
        name: 'github',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_TOKEN: 't' },
      },
      { name: 'local', transport: 'stdio', command: '/opt/srv', args: [], env: {}, cwd: '/tmp' },
      { name: 'docs', transport: 'http', url: new URL('https://docs.example/mcp'), headers: { Authorization: 'Bearer x' } },
      { name: 'plain', transport: 'http', url: new URL('http://127.0.0.1:9/mcp'), headers: {} },
    ])
    expect(parse({ mcpServers: {} })).toEqual([])
  })

  it('keeps hostile values as data: quotes, $(), newlines and leading dashes are arguments, never shell words', () => {
    const args = ['--flag', '$(touch /tmp/x)', 'a "b"', 'line\nbreak', '-']
    expect(parse({ mcpServers: { s: { command: '-dash', args } } })).toEqual([
      { name: 's', transport: 'stdio', command: '-dash', args, env: {} },
    ])
  })

  it.each([
    ['not JSON', '{"mcpServers": ', /upstream file servers\.json is not JSON \(/],
    ['a JSON array', [], /must be \{"mcpServers": \{NAME: \{\.\.\.\}\}\}: \(root\): /],
    ['no mcpServers', { servers: {} }, /mcpServers: /],
    ['mcpServers as an array', { mcpServers: [] }, /mcpServers: /],
    ['an empty server name', { mcpServers: { '': { command: 'x' } } }, /names a server "": each server needs a name/],
    [
      'a server that is not an object',
      { mcpServers: { s: 'npx server' } },
      /server "s": .*needs a "command" \(a stdio server\) or a "url"/,
    ],
    ['a server with neither command nor url', { mcpServers: { s: { args: [] } } }, /server "s": .*needs a "command"/],
    ['an empty command', { mcpServers: { s: { command: '' } } }, /server "s": /],
    ['args that are not strings', { mcpServers: { s: { command: 'x', args: [1] } } }, /server "s": /],
    ['a NUL in an argument', { mcpServers: { s: { command: 'x', args: ['a\0b'] } } }, /server "s": /],
    ['a NUL in the environment', { mcpServers: { s: { command: 'x', env: { A: '\0' } } } }, /server "s": /],
    ['a URL that is not http', { mcpServers: { s: { url: 'file:///etc/passwd' } } }, /server "s": /],
    ['a URL that is not a URL', { mcpServers: { s: { url: 'not a url' } } }, /server "s": /],
    [
      'an SSE server',
      { mcpServers: { old: { type: 'sse', url: 'http://x/sse' } } },
      /server "old" uses SSE, which the gateway does not speak/,
    ],
  ])('refuses %s, saying what is wrong', (_, value, message) => {
    expect(() => parse(value)).toThrow(
      expect.objectContaining({ code: 'UPSTREAM_CONFIG_INVALID', message: expect.stringMatching(message) }),
    )
  })

  it('refuses a file larger than an mcpServers file can be, before parsing it', () => {
    const huge = JSON.stringify({ mcpServers: {}, pad: 'x'.repeat(UPSTREAM_CONFIG_MAX_BYTES) })
    expect(() => parse(huge)).toThrow(/is larger than 1048576 bytes/)
  })
})
