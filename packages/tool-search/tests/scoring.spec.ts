import { describe, expect, it } from 'vitest'
import { SCORINGS } from '@dsh/tool-search'
import { rankerFor } from '../src/scoring.js'

const tools = [
  { name: 'mcp__slack__send_message', description: 'Send a message to a channel.', isMcp: true },
  { name: 'mcp__slack__list_channels', description: 'List the channels.', isMcp: true },
]

describe('rankerFor', () => {
  it('ranks with the scorer named: the seed table in points, rarity by weight', () => {
    const keywords = { terms: ['slack', 'send'], required: [] }
    expect(
      rankerFor('claude-code')(tools)
        .rank(keywords, 5)
        .map((m) => [m.name, m.score]),
    ).toEqual([
      // slack and send are MCP name parts (12 each); send is in the description too (2).
      ['mcp__slack__send_message', 26],
      ['mcp__slack__list_channels', 12],
    ])
    const rarity = rankerFor('rarity')(tools).rank(keywords, 5)
    expect(rarity.map((m) => m.name)).toEqual(['mcp__slack__send_message', 'mcp__slack__list_channels'])
    expect(rarity[0]!.score).not.toBe(26)
  })

  it('names every scorer the config accepts', () => {
    expect(SCORINGS).toEqual(['rarity', 'claude-code'])
  })
})
