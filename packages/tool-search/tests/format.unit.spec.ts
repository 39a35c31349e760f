import { describe, expect, it } from 'vitest'
import { formatSearchResult, summarize, SUMMARY_MAX_CHARS } from '../src/format.js'

const slack = { name: 'mcp__slack__send_message', description: 'Send a message to a channel.' }
const github = { name: 'mcp__github__create_issue', description: 'Create an issue.' }
const PENDING = 'MCP servers still connecting: figma, linear. Their tools may match once connected; search again shortly.'

describe('formatSearchResult', () => {
  it('names each loaded tool with its one-line description', () => {
    expect(formatSearchResult({ loaded: [slack, github], unknown: [], pendingServers: [] })).toBe(
      [
        'Loaded 2 tools; their schemas are in your tool list now:',
        '- mcp__slack__send_message: Send a message to a channel.',
        '- mcp__github__create_issue: Create an issue.',
      ].join('\n'),
    )
    expect(formatSearchResult({ loaded: [slack], unknown: [], pendingServers: ['figma'] })).toBe(
      'Loaded 1 tool; its schema is in your tool list now:\n- mcp__slack__send_message: Send a message to a channel.',
    )
  })

  it('says nothing matched, and names the servers still connecting when there are any', () => {
    expect(formatSearchResult({ loaded: [], unknown: [], pendingServers: [] })).toBe('No matching deferred tools found.')
    expect(formatSearchResult({ loaded: [], unknown: [], pendingServers: ['figma', 'linear'] })).toBe(
      `No matching deferred tools found.\n${PENDING}`,
    )
  })

  it('names the selected names no tool has, beside the ones it loaded', () => {
    expect(formatSearchResult({ loaded: [], unknown: ['Nope', 'Nada'], pendingServers: [] })).toBe(
      'No matching deferred tools found: no tool is named Nope, Nada.',
    )
    expect(formatSearchResult({ loaded: [github], unknown: ['Nope'], pendingServers: ['figma', 'linear'] })).toBe(
      [
        'Loaded 1 tool; its schema is in your tool list now:',
        '- mcp__github__create_issue: Create an issue.',
        'Not found: no tool is named Nope.',
        PENDING,
      ].join('\n'),
    )
  })
})

describe('summarize', () => {
  it('keeps the first non-blank line, trimmed', () => {
    expect(summarize('\n   \n  Fetch a page.  \nDetails follow.')).toBe('Fetch a page.')
    expect(summarize(' \n ')).toBe('(no description)')
  })

  it('removes escape sequences and shows hidden characters escaped, so a description hides nothing in the answer', () => {
    const hostile = '\u001b[2J\u001b[31mSend\u001b[0m a message.\u202e\u200b\u{e0049}\r\nSecond line.'
    expect(summarize(hostile)).toBe('Send a message.\\u202e\\u200b\\udb40\\udc49')
    expect(summarize('\ufeff\u2028\nFetch.')).toBe('\\ufeff\\u2028')
    expect(formatSearchResult({ loaded: [{ name: 'mcp__x__send', description: hostile }], unknown: [], pendingServers: [] })).toBe(
      'Loaded 1 tool; its schema is in your tool list now:\n- mcp__x__send: Send a message.\\u202e\\u200b\\udb40\\udc49',
    )
  })

  it(`cuts a line longer than ${SUMMARY_MAX_CHARS} characters and marks the cut, counting characters, not UTF-16 units`, () => {
    const exact = '😀'.repeat(SUMMARY_MAX_CHARS)
    expect(summarize(exact)).toBe(exact)
    const cut = summarize(`${exact}x`)
    expect([...cut]).toHaveLength(SUMMARY_MAX_CHARS)
    expect(cut.endsWith('😀…')).toBe(true)
  })
})
