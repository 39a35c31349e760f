import { describe, expect, it } from 'vitest'
import { readBuiltinArgs } from '../src/builtin-args.js'

describe('readBuiltinArgs', () => {
  it.each([
    [['tools'], { command: 'tools' }],
    [['mcp'], { command: 'mcp', upstream: undefined, http: undefined, tokenFile: undefined }],
    [['mcp', '--upstream', 'servers.json'], { command: 'mcp', upstream: 'servers.json', http: undefined, tokenFile: undefined }],
    [
      ['mcp', '--http', '127.0.0.1:0', '--token-file', 'token'],
      { command: 'mcp', upstream: undefined, http: '127.0.0.1:0', tokenFile: 'token' },
    ],
    [
      ['tool-search', 'slack send'],
      { command: 'tool-search', query: 'slack send', maxResults: undefined, catalog: undefined, explain: false },
    ],
    [
      ['tool-search', '--catalog', 'c.json', '--max-results', '3', '--explain', '--', '-rf'],
      { command: 'tool-search', query: '-rf', maxResults: 3, catalog: 'c.json', explain: true },
    ],
    [
      ['tool-search', '--query=select:a,b'],
      { command: 'tool-search', query: 'select:a,b', maxResults: undefined, catalog: undefined, explain: false },
    ],
  ] as const)('reads %j', (argv, args) => {
    expect(readBuiltinArgs(argv[0], argv)).toEqual(args)
  })

  it.each([
    [['tool-search'], 'tool-search takes QUERY'],
    [['tool-search', 'a', 'b'], 'tool-search takes QUERY'],
    [['tool-search', 'a', '--max-results', 'five'], '--max-results must be a number, not "five"'],
    [['mcp', '--upstream'], "Option '--upstream <value>' argument missing"],
    [['tools', 'extra'], 'tools takes no arguments'],
  ] as const)('refuses %j', (argv, message) => {
    expect(() => readBuiltinArgs(argv[0], argv)).toThrow(expect.objectContaining({ message: expect.stringContaining(message) }))
  })
})
