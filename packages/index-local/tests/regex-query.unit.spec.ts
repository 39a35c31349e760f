import { describe, expect, it } from 'vitest'
import { patternQuery, type TrigramQuery } from '../src/regex-query.js'
import { literalTrigrams } from '../src/trigrams.js'

/** The query as text: trigrams as their three characters, AND as `&`, OR as `|`. */
function show(query: TrigramQuery): string {
  switch (query.op) {
    case 'all':
      return '*'
    case 'trigram':
      return String.fromCharCode(query.key >> 16, (query.key >> 8) & 0xff, query.key & 0xff)
    case 'and':
      return `(${query.of.map(show).join('&')})`
    case 'or':
      return `(${query.of.map(show).join('|')})`
  }
}

const q = (pattern: string, caseInsensitive = false) => show(patternQuery(pattern, { caseInsensitive }))

describe('patternQuery', () => {
  it.each([
    ['foo', 'foo'],
    ['Foo', 'foo'],
    ['hello', '(hel&ell&llo)'],
    ['a.b', '*'],
    ['ab', '*'],
    ['.', '*'],
    ['\\w+', '*'],
    ['', '*'],
    ['foo|bar', '(foo|bar)'],
    ['foo|.', '*'],
    ['[Ff]oo', 'foo'],
    ['[a-b]ar', '(aar|bar)'],
    ['[^x]oo', '*'],
    ['[a-z]oo', '*'],
    ['foo.*bar', '(foo&bar)'],
    ['foo\\w+bar', '(foo&bar)'],
    ['(foo)+', 'foo'],
    ['(foo)*bar', 'bar'],
    ['(foo)?bar', '((foo&oob&oba&bar)|bar)'],
    ['fo{2}', '*'],
    ['function\\s+use[A-Z]\\w+', '((fun&unc&nct&cti&tio&ion)&use)'],
    ['(foo){2,}', 'foo'],
    ['(foo){0,3}x', '*'],
    ['^foo$', 'foo'],
    ['\\bfoo\\b', 'foo'],
    ['a\\.bc', '(a.b&.bc)'],
    ['\\p{Greek}foo', 'foo'],
    ['\\x41foo', 'foo'],
    ['\\u{1F600}foo', 'foo'],
    ['(?:foo)', 'foo'],
    ['(?P<name>foo)', 'foo'],
    ['(?x)foo', '*'],
    ['[[:alpha:]]foo', '*'],
    ['foo)', '*'],
    ['(foo', '*'],
    ['*foo', '*'],
    ['fo{x}', '(fo{&o{x&{x})'],
    ['(foo)*?bar', 'bar'],
    ['\\Bfoo\\B{end}', 'foo'],
    ['(foo)+?', 'foo'],
    ['colou?r', '((col&olo&lou&our)|(col&olo&lor))'],
    ['(a.c)?defg', '(def&efg)'],
    ['(foo){ 2}', 'foo'],
    ['(foo){2', '*'],
    ['(foo){2,x}', '*'],
    ['(?P<name', '*'],
    ['(?i', '*'],
    ['foo\\', '*'],
    ['\\b{start}foo', 'foo'],
    ['\\pLfoo', 'foo'],
    ['\\xFFfoo', 'foo'],
    ['\\u0041foo', 'foo'],
    ['\\U00000041foo', 'foo'],
    ['\\dfoo', 'foo'],
    ['\\p{Greek', '*'],
    ['fo\\no', '(fo\n&o\no)'],
    ['[\\n]ab', '\nab'],
    ['[\\d]foo', 'foo'],
    ['[\\p{L}]foo', 'foo'],
    ['[\\pL]foo', 'foo'],
    ['[\\x41]foo', 'foo'],
    ['[\\u0041]foo', 'foo'],
    ['[\\U00000041]foo', 'foo'],
    ['[\\]]ab', ']ab'],
    ['[]]ab', ']ab'],
    ['[^]]ab', '*'],
    ['[a&&b]cd', '*'],
    ['[a--b]cd', '*'],
    ['[a~~b]cd', '*'],
    ['[-a]bc', '(-bc|abc)'],
    ['[a-]bc', '(abc|-bc)'],
    ['[z-a]bc', '*'],
    ['[ab', '*'],
    ['[\\', '*'],
    ['[k]ab', 'kab'],
  ])('%s reduces to %s', (pattern, expected) => {
    expect(q(pattern)).toBe(expected)
  })

  it('treats k, s and non-ASCII letters as any character under -i, since Unicode folds them to other bytes', () => {
    expect(q('kelvin', true)).toBe('(elv&lvi&vin)')
    expect(q('state', true)).toBe('(tat&ate)')
    expect(q('été', true)).toBe('*')
    expect(q('(?i)kelvin')).toBe('(elv&lvi&vin)')
    expect(q('(?i:k)kelvin')).toBe('(kel&elv&lvi&vin)')
    expect(q('(?i)k(?-i)kelvin')).toBe('(kel&elv&lvi&vin)')
    expect(q('[k]ab', true)).toBe('*')
    expect(q('[é]ab', true)).toBe('*')
  })

  it('keys non-ASCII characters by their UTF-8 bytes when case matters', () => {
    expect(patternQuery('é', { caseInsensitive: false })).toEqual({ op: 'all' })
    const keys = literalTrigrams(Buffer.from('éa', 'utf8').toString('latin1'))
    expect(keys).toHaveLength(1)
    expect(patternQuery('éa', { caseInsensitive: false })).toEqual({ op: 'trigram', key: keys[0] })
  })

  it('turns an alternation of more strings than it keeps into their query', () => {
    const words = Array.from({ length: 70 }, (_, i) => `w${String(i).padStart(2, '0')}`)
    expect(q(words.join('|'))).toMatch(/^\(w00\|w01\|.*\|w69\)$/)
    expect(q(`(${words.join('|')})x`)).toMatch(/^\(w00\|/)
  })

  it('gives up an exact set past its size and keeps the query', () => {
    expect(q('[a-p][a-p]xyz')).toMatch(/^\(\(axy&xyz\)\|.*\(pxy&xyz\)\)$/)
  })

  it('ties the trigrams of each exact string to the string, so a search can line them up', () => {
    expect(patternQuery('Hello', { caseInsensitive: false })).toMatchObject({ op: 'and', phrase: 'hello' })
    expect(patternQuery('helloo|world', { caseInsensitive: false })).toMatchObject({
      op: 'or',
      of: [{ phrase: 'helloo' }, { phrase: 'world' }],
    })
    // Within a larger AND, each string its own phrase; a string of one trigram is that trigram.
    const query = patternQuery('abcd.*foo', { caseInsensitive: false })
    expect(query).toMatchObject({ op: 'and', of: [{ op: 'and', phrase: 'abcd' }, { op: 'trigram' }] })
    expect(query).not.toHaveProperty('phrase')
  })
})
