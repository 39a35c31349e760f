import { describe, expect, it } from 'vitest'
import { highlightSegments, patternRegExp } from '../src/highlight.js'

describe('highlightSegments', () => {
  it('marks each match of the pattern, keeping the text around it', () => {
    expect(highlightSegments('a TODO b TODO', patternRegExp('TODO'))).toEqual([
      { text: 'a ', hit: false },
      { text: 'TODO', hit: true },
      { text: ' b ', hit: false },
      { text: 'TODO', hit: true },
    ])
  })

  it('is the whole line, unmarked, without a pattern or with one JavaScript cannot read', () => {
    expect(highlightSegments('x', patternRegExp(undefined))).toEqual([{ text: 'x', hit: false }])
    expect(highlightSegments('x', patternRegExp(''))).toEqual([{ text: 'x', hit: false }])
    expect(patternRegExp('(?i)todo')).toBeUndefined()
    expect(patternRegExp('[')).toBeUndefined()
  })

  it('reads a pattern without Unicode mode when only that reading parses', () => {
    expect(patternRegExp('a\\-b')?.flags).toBe('g')
    expect(patternRegExp('é.')?.flags).toBe('gu')
  })

  it('skips empty matches and still ends', () => {
    expect(highlightSegments('abc', patternRegExp('x*'))).toEqual([{ text: 'abc', hit: false }])
    expect(highlightSegments('', patternRegExp('x*'))).toEqual([{ text: '', hit: false }])
    expect(highlightSegments('ab', patternRegExp('b|x*'))).toEqual([
      { text: 'a', hit: false },
      { text: 'b', hit: true },
    ])
  })

  it('treats the line as text: markup in it is just characters', () => {
    expect(highlightSegments('<img src=x onerror=alert(1)>', patternRegExp('img'))).toEqual([
      { text: '<', hit: false },
      { text: 'img', hit: true },
      { text: ' src=x onerror=alert(1)>', hit: false },
    ])
  })
})
