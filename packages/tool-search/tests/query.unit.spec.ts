import { describe, expect, it } from 'vitest'
import { parseQuery } from '../src/query.js'

describe('parseQuery', () => {
  it.each([
    ['select:a,b,c', ['a', 'b', 'c']],
    ['  SELECT: mcp__slack__send_message ,  WebFetch  ', ['mcp__slack__send_message', 'WebFetch']],
    ['select:Read,Read,,Edit,Read', ['Read', 'Edit']],
    ['select:', []],
    ['select: , ,', []],
  ])('reads %j as a selection of %j', (query, names) => {
    expect(parseQuery(query)).toEqual({ mode: 'select', names })
  })

  it('reads anything else as lower-case keywords, with +words required and a lone + kept as a term', () => {
    expect(parseQuery('  +Slack   send\tMessage + ')).toEqual({
      mode: 'keywords',
      terms: ['slack', 'send', 'message', '+'],
      required: ['slack'],
    })
    expect(parseQuery('notebook select:x')).toEqual({ mode: 'keywords', terms: ['notebook', 'select:x'], required: [] })
    expect(parseQuery(' \n ')).toEqual({ mode: 'keywords', terms: [], required: [] })
  })
})
