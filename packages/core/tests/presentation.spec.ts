import { describe, expect, it } from 'vitest'
import { SearchMatchesResultView, SearchPathsResultView, SearchResultView, viewJsonSchema } from '@dsh/core'

const matches = {
  card: 'search',
  shape: 'matches',
  files: [{ path: 'a.ts', matches: [{ lineNumber: 3, line: 'x' }] }],
  truncated: false,
  total: 1,
  incomplete: false,
} as const
const paths = { card: 'search', shape: 'paths', paths: ['a.ts'], truncated: true, total: 9, incomplete: true } as const

describe('the search view schemas', () => {
  it('read both shapes, by shape', () => {
    expect(SearchResultView.parse(matches)).toEqual(matches)
    expect(SearchResultView.parse(paths)).toEqual(paths)
    expect(SearchMatchesResultView.safeParse(paths).success).toBe(false)
    expect(SearchPathsResultView.safeParse(matches).success).toBe(false)
  })

  it.each<[string, unknown]>([
    ['a line number of 0', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 0, line: 'x' }] }] }],
    ['a fractional line number', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 1.5, line: 'x' }] }] }],
    ['a fractional total', { ...matches, total: 1.5 }],
    ['a total past 2^53', { ...matches, total: 2 ** 54 }],
    ['another card', { ...paths, card: 'generic' }],
  ])('refuse %s', (_, view) => {
    expect(SearchResultView.safeParse(view).success).toBe(false)
  })

  it('take a line number past 2^53, as the page reads its digits', () => {
    const far = { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 1e20, line: 'x' }] }] }
    expect(SearchResultView.parse(far)).toEqual(far)
  })

  it('give the JSON Schema a host declares, without its dialect tag', () => {
    const schema = viewJsonSchema(SearchPathsResultView)
    expect(schema).not.toHaveProperty('$schema')
    expect(schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['card', 'shape', 'paths', 'truncated', 'total', 'incomplete']),
      properties: { shape: { const: 'paths' }, paths: { type: 'array', items: { type: 'string' } } },
    })
  })
})
