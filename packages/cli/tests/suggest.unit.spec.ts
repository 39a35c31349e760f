import { describe, expect, it } from 'vitest'
import { nearestName, nearestOption } from '../src/suggest.js'

const commands = ['glob', 'grep', 'read', 'tools', 'mcp']

describe('nearestName', () => {
  it.each([
    ['gerp', 'grep'],
    ['grpe', 'grep'],
    ['Glob', 'glob'],
    ['raed', 'read'],
    ['tool', 'tools'],
    ['mpc', 'mcp'],
    ['greps', 'grep'],
    ['globb', 'glob'],
    ['toools', 'tools'],
  ])('suggests %s → %s', (typed, expected) => {
    expect(nearestName(typed, commands)).toBe(expected)
  })

  it.each(['frob', 'gpre', 'search', 'x', ''])('suggests nothing for %j', (typed) => {
    expect(nearestName(typed, commands)).toBeUndefined()
  })

  it('suggests nothing when there is nothing to suggest', () => {
    expect(nearestName('grep', [])).toBeUndefined()
  })
})

describe('nearestOption', () => {
  const options = ['include', 'format', 'cwd', 'null', 'h', 'V']

  it.each([
    ['--includ', '--include'],
    ['--Format', '--format'],
    ['--nul', '--null'],
    ['--cdw', '--cwd'],
  ])('suggests %s → %s', (typed, expected) => {
    expect(nearestOption(typed, options)).toBe(expected)
  })

  it.each(['-v', '-H', '--v', '--nope'])('suggests nothing for %j: no guess at one letter', (typed) => {
    expect(nearestOption(typed, options)).toBeUndefined()
  })
})
