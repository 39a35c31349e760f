import { describe, expect, it } from 'vitest'
import { nearestCommand } from '../src/suggest.js'

const commands = ['glob', 'grep', 'read', 'tools', 'mcp']

describe('nearestCommand', () => {
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
    expect(nearestCommand(typed, commands)).toBe(expected)
  })

  it.each(['frob', 'gpre', 'search', 'x', ''])('suggests nothing for %j', (typed) => {
    expect(nearestCommand(typed, commands)).toBeUndefined()
  })

  it('suggests nothing when there is nothing to suggest', () => {
    expect(nearestCommand('grep', [])).toBeUndefined()
  })
})
