import { describe, expect, it } from 'vitest'
import { hasGlobSyntax, segmentPattern } from '../src/segments.js'

describe('segmentPattern', () => {
  it.each([
    ['*.pem', 'key.pem', true],
    ['*.pem', 'key.pem.bak', false],
    ['id_*', 'id_rsa', true],
    ['?.txt', 'a.txt', true],
    ['?.txt', 'ab.txt', false],
    ['[ab].txt', 'b.txt', true],
    ['[!ab].txt', 'b.txt', false],
    ['[!ab].txt', 'c.txt', true],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
    ['a.b', 'a.b', true],
    ['a.b', 'axb', false],
    ['[unclosed', '[unclosed', true],
    ['[z-a].txt', '[z-a].txt', true],
    ['(x)+{y}|$^', '(x)+{y}|$^', true],
  ])('%s against %s is %s', (glob, segment, expected) => {
    expect(segmentPattern(glob).test(segment)).toBe(expected)
  })
})

describe('hasGlobSyntax', () => {
  it.each([
    ['*.pem', true],
    ['a?', true],
    ['[x]', true],
    ['a\\b', true],
    ['plain.txt', false],
  ])('%s: %s', (segment, expected) => {
    expect(hasGlobSyntax(segment)).toBe(expected)
  })
})
