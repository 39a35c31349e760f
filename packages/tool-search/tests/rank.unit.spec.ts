import { describe, expect, it, vi } from 'vitest'
import { cachedRanker, orderCandidates, roundScore, type SearchableTool } from '../src/rank.js'

const candidate = (name: string, score: number, named = false) => ({ name, score, named })

describe('orderCandidates', () => {
  it('puts named tools first, then higher scores, then names, and keeps maxResults', () => {
    const candidates = [candidate('b', 5), candidate('a', 5), candidate('z', 1, true), candidate('c', 9), candidate('d', 0.5)]
    expect(orderCandidates(candidates, 10).map((c) => c.name)).toEqual(['z', 'c', 'a', 'b', 'd'])
    expect(orderCandidates(candidates, 2).map((c) => c.name)).toEqual(['z', 'c'])
    expect(orderCandidates([...candidates].reverse(), 3).map((c) => c.name)).toEqual(['z', 'c', 'a'])
  })

  it('keeps the best of many, whatever order they arrive in', () => {
    const many = Array.from({ length: 500 }, (_, at) => candidate(`t${String(at).padStart(3, '0')}`, (at * 37) % 101))
    const sorted = [...many].sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1)).slice(0, 7)
    expect(orderCandidates(many, 7)).toEqual(sorted)
    expect(orderCandidates([...many].reverse(), 7)).toEqual(sorted)
  })
})

describe('roundScore', () => {
  it('rounds to thousandths, so scores that print alike compare alike', () => {
    expect(roundScore(4.61849)).toBe(4.618)
    expect(roundScore(0.1 + 0.2)).toBe(roundScore(0.3))
  })
})

describe('cachedRanker', () => {
  const tools: SearchableTool[] = [
    { name: 'a', description: 'A.', isMcp: false },
    { name: 'b', description: 'B.', isMcp: false },
  ]

  it('reads a set of tools once, and again only when a tool is added, removed or replaced', () => {
    const build = vi.fn((_: readonly SearchableTool[]) => ({ rank: () => [] }))
    const rankerFor = cachedRanker(build)
    const first = rankerFor(tools)
    expect(rankerFor([...tools])).toBe(first)
    expect(build).toHaveBeenCalledTimes(1)
    expect(rankerFor([...tools, { name: 'c', description: 'C.', isMcp: false }])).not.toBe(first)
    expect(rankerFor([tools[0]!])).not.toBe(first)
    expect(rankerFor([tools[0]!, { ...tools[1]! }])).not.toBe(first)
    expect(build).toHaveBeenCalledTimes(4)
  })
})
