import { describe, expect, expectTypeOf, it } from 'vitest'
import type { SearchResultView as CoreView } from '@dsh/core'
import { shownCount, toSearchView, type SearchResultView } from '../src/view.js'

const matches: SearchResultView = {
  card: 'search',
  shape: 'matches',
  files: [
    {
      path: 'a.ts',
      matches: [
        { lineNumber: 1, line: 'x' },
        { lineNumber: 4, line: 'y' },
      ],
    },
    { path: 'b.ts', matches: [{ lineNumber: 2, line: 'z' }] },
  ],
  truncated: true,
  total: 10,
  incomplete: false,
}
const paths: SearchResultView = { card: 'search', shape: 'paths', paths: ['a', 'b'], truncated: false, total: 2, incomplete: false }

describe('the view the card takes', () => {
  it('is the view @dsh/core declares, field for field', () => {
    expectTypeOf<SearchResultView>().toEqualTypeOf<CoreView>()
  })

  it('takes a view, or the object dsh --format json prints', () => {
    expect(toSearchView(matches)).toBe(matches)
    expect(toSearchView(paths)).toBe(paths)
    expect(toSearchView({ isError: false, content: 'text', meta: {}, view: paths })).toBe(paths)
  })

  it('reads a view printed before `incomplete` existed as complete', () => {
    const { incomplete: _absent, ...old } = paths
    expect(toSearchView(old)).toEqual(paths)
    expect(toSearchView({ ...paths, incomplete: true })).toMatchObject({ incomplete: true })
  })

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['a mistyped incomplete', { ...paths, incomplete: 'yes' }],
    ['a string', 'paths'],
    ['an array', [paths]],
    ['a json object whose view is null', { isError: false, content: 'text', meta: null, view: null }],
    ['a generic card', { card: 'generic', isError: false }],
    ['a mistyped truncated', { ...paths, truncated: 'no' }],
    ['a negative total', { ...paths, total: -1 }],
    ['an unknown shape', { ...paths, shape: 'tree' }],
    ['non-string paths', { ...paths, paths: [1] }],
    ['files not an array', { ...matches, files: null }],
    ['a file without matches', { ...matches, files: [{ path: 'a' }] }],
    ['a file without a path', { ...matches, files: [{ matches: [] }] }],
    ['a match that is not an object', { ...matches, files: [{ path: 'a', matches: [null] }] }],
    ['a match without a line', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 1 }] }] }],
    ['a match with a string line number', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: '1', line: 'x' }] }] }],
  ])('is undefined for %s', (_name, input) => {
    expect(toSearchView(input)).toBeUndefined()
  })

  it('counts the results a view holds', () => {
    expect(shownCount(matches)).toBe(3)
    expect(shownCount(paths)).toBe(2)
  })
})
