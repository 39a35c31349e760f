import { describe, expect, it } from 'vitest'
import { DenyRules, foldNonAscii } from '../src/deny.js'

const rules = new DenyRules(['**/.env', '*.pem', 'id_*', 'secrets/', '/top.txt', 'config/prod/*.json', 'a/*/key', 'deep/**/token'])

describe('DenyRules.denies', () => {
  it.each([
    ['.env', true],
    ['x/y/.env', true],
    ['k.pem', true],
    ['d/k.pem', true],
    ['home/id_rsa', true],
    ['secrets', true],
    ['secrets/x.txt', true],
    ['a/secrets/x.txt', true],
    ['top.txt', true],
    ['d/top.txt', false],
    ['config/prod/db.json', true],
    ['x/config/prod/db.json', false],
    ['a/b/key', true],
    ['a/b/c/key', false],
    ['deep/1/2/token', true],
    ['readme.md', false],
    ['', false],
  ])('%s: %s', (path, expected) => {
    expect(rules.denies(path)).toBe(expected)
  })
})

describe('DenyRules.exclusionsBelow', () => {
  it('passes every pattern on, anchored ones with a leading "/", for a search of the root itself', () => {
    expect(rules.exclusionsBelow('')).toEqual([
      '**/.env',
      '*.pem',
      'id_*',
      'secrets/',
      '/top.txt',
      '/config/prod/*.json',
      '/a/*/key',
      '/deep/**/token',
    ])
  })

  it('rebases anchored patterns onto a search root below, and drops those that cannot reach it', () => {
    expect(new DenyRules(['config/prod/*.json', 'config/dev.json', '/top.txt', '*.pem']).exclusionsBelow('config')).toEqual([
      '/prod/*.json',
      '/dev.json',
      '*.pem',
    ])
    expect(new DenyRules(['config/prod/*.json']).exclusionsBelow('config/prod')).toEqual(['/*.json'])
    expect(new DenyRules(['config/prod/*.json']).exclusionsBelow('src')).toEqual([])
  })

  it('matches glob segments on the way down and turns ** into an unanchored rest', () => {
    expect(new DenyRules(['a/*/key']).exclusionsBelow('a/b')).toEqual(['/key'])
    expect(new DenyRules(['a/*/key']).exclusionsBelow('a/b/c')).toEqual([])
    expect(new DenyRules(['deep/**/token']).exclusionsBelow('deep/x/y')).toEqual(['**/token'])
    expect(new DenyRules(['deep/**/token']).exclusionsBelow('deep')).toEqual(['**/token'])
  })

  it('leaves out a pattern the search root is itself inside or equal to (the target is refused first)', () => {
    expect(new DenyRules(['a/b']).exclusionsBelow('a/b')).toEqual([])
    expect(new DenyRules(['a/b/']).exclusionsBelow('a/b')).toEqual([])
    expect(new DenyRules(['a/b']).exclusionsBelow('a/b/c')).toEqual([])
  })
})

describe('one rule, one meaning (docs/design.md#one-rule-one-meaning)', () => {
  const folded = new DenyRules(['**/.env', 's\u00e9cret/', 'Config/Prod/*.json'])

  it.each([
    ['.ENV', true],
    ['x/.Env', true],
    ['SÉCRET/a', true],
    ['se\u0301cret/a', true],
    ['config/prod/DB.JSON', true],
    ['config/dev/db.json', false],
  ])('%s: %s, whatever the case or the Unicode spelling', (path, expected) => {
    expect(folded.denies(path)).toBe(expected)
  })

  it('gives rg a glob in both spellings when they differ, and rebases an anchored rule whatever the case', () => {
    expect(folded.exclusionsBelow('')).toEqual(['**/.env', 's{\u00e9,\u00c9}cret/', 'se\u0301cret/', '/Config/Prod/*.json'])
    expect(folded.exclusionsBelow('CONFIG')).toEqual(['**/.env', 's{\u00e9,\u00c9}cret/', 'se\u0301cret/', '/Prod/*.json'])
    expect(new DenyRules(['a/*x/k']).exclusionsBelow('A/BX')).toEqual(['/k'])
  })
})

describe('foldNonAscii', () => {
  it.each([
    ['P\u00c4SSE*', 'P{\u00e4,\u00c4}SSE*'],
    ['[\u00e4b]x', '[\u00e4b]x'],
    ['*.{\u00e4,b}', '*.{\u00e4,b}'],
    ['\\\u00e4', '\\\u00e4'],
    ['stra\u00dfe', 'stra\u00dfe'],
    ['\u4e2d\u6587', '\u4e2d\u6587'],
    ['plain', 'plain'],
  ])('%s becomes %s', (glob, expected) => {
    expect(foldNonAscii(glob)).toBe(expected)
  })
})
