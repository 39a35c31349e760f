// Paging a complete result: the request a call makes, the page it gets, the footers, the spill's blocks.
import { describe, expect, it } from 'vitest'
import { pageRequest, pagingNote, spillBlocks, takePage, textBlocks, type SpillPlan } from '../../src/claude-code/paging.js'

describe('paging', () => {
  it('asks for 250 from 0 by default, and for everything with head_limit 0', () => {
    expect(pageRequest({})).toEqual({ offset: 0, limit: 250 })
    expect(pageRequest({ offset: 5, head_limit: 0 })).toEqual({ offset: 5, limit: Number.POSITIVE_INFINITY })
  })

  it('keeps entries within the count and byte budgets, and at least one', () => {
    expect(takePage(['a', '\nbb', '\ncc'], 3, { offset: 0, limit: 2 }, 100)).toEqual({ offset: 0, kept: 2, total: 3, text: 'a\nbb' })
    expect(takePage(['a', '\nbb', '\ncc'], 3, { offset: 0, limit: 9 }, 4)).toEqual({ offset: 0, kept: 2, total: 3, text: 'a\nbb' })
    expect(takePage(['long entry'], 1, { offset: 0, limit: 9 }, 2)).toMatchObject({ kept: 1, text: 'long entry' })
  })

  it('says nothing for a whole result, and the saved result when none is stored', () => {
    expect(pagingNote({ offset: 0, kept: 2, total: 2, text: '' }, 'files', undefined)).toBeUndefined()
    expect(pagingNote({ offset: 0, kept: 1, total: 2, text: '' }, 'files', { saved: false, reason: 'no spill store is configured' })).toBe(
      '(Showing files 1-1 of 2; to see more, call again with offset: 1. The complete result could not be saved (no spill store is configured); narrow the search to see the rest.)',
    )
    expect(pagingNote({ offset: 0, kept: 1, total: 2, text: '' }, 'files', undefined)).toBe(
      '(Showing files 1-1 of 2; to see more, call again with offset: 1.)',
    )
  })

  it('writes texts as blocks whose concatenation is theirs', () => {
    const texts = Array.from({ length: 3000 }, (_, i) => `${'é'.repeat(100)}${i}\n`)
    const blocks = [...textBlocks(texts)]
    expect(blocks.length).toBeGreaterThan(1)
    expect(Buffer.concat(blocks.map((block) => block.bytes)).toString()).toBe(texts.join(''))
    expect(blocks.flatMap((block) => block.texts)).toEqual(texts)
    expect([...textBlocks([])]).toEqual([])
  })

  it('cuts the spill at maxBytes after the last whole entry that fits, and says so', () => {
    const entries = Array.from({ length: 3000 }, (_, i) => `${i === 0 ? '' : '\n'}${'é'.repeat(100)}:${i}`)
    const spill = (maxBytes: number, tail = '\n') => {
      const plan: SpillPlan = { heading: 'Found it', entries, tail, total: 3000, unit: 'files', maxBytes }
      return { text: Buffer.concat([...spillBlocks(plan)]).toString(), cut: plan.cut }
    }
    expect(spill(1 << 30)).toEqual({ text: `Found it\n\n${entries.join('')}\n`, cut: undefined })
    // Past the first block of entries.
    const big = spill(400_000)
    expect(big.cut!.saved).toBeGreaterThan(1000)
    expect(big.text).toBe(
      `Found it\n\n${entries.slice(0, big.cut!.saved).join('')}\n\n(This file holds the first ${big.cut!.saved} of 3000 files: the complete result passes spillMaxBytes, 400000 bytes.)\n`,
    )
    expect(Buffer.byteLength(big.text)).toBeLessThanOrEqual(400_000)
    expect(Buffer.byteLength(`Found it\n\n${entries.slice(0, big.cut!.saved + 1).join('')}\n`)).toBeGreaterThan(400_000 - 256)
    // Not even one entry: the note follows the heading.
    expect(spill(300, '\n\n(stopped)\n')).toEqual({
      text: 'Found it\n\n(This file holds the first 0 of 3000 files: the complete result passes spillMaxBytes, 300 bytes.)\n\n(stopped)\n',
      cut: { saved: 0 },
    })
  })
})
