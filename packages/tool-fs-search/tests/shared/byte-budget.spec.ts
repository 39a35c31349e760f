import { beforeAll, describe, expect, it } from 'vitest'
import { countWithinBytes } from '../../src/shared/byte-budget.js'
import { callTool, loadRealHarness, pageOf, scratchDirs, writeCapsTree } from '../real-harness.js'

describe('countWithinBytes', () => {
  it('counts how many items fit a byte budget, never fewer than one', () => {
    expect(countWithinBytes([5, 5, 5], 10, (n) => n)).toBe(2)
    expect(countWithinBytes([50], 10, (n) => n)).toBe(1)
    expect(countWithinBytes([], 10, (n: number) => n)).toBe(0)
  })
})

describe('bounded pages (docs/design.md#bytes-not-only-counts)', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('caps')
  beforeAll(() => writeCapsTree(tree))

  it('the inline page stays within inlineMaxBytes', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { inlineMaxBytes: 60 } })
    const grep = await callTool(capped, 'grep', { pattern: 'needle' }, tree)
    const groups = pageOf(grep.content).split('\n\n').slice(1).join('\n\n')
    expect(grep.content).toMatch(/^Found \d of 10 matches/)
    expect(Buffer.byteLength(groups)).toBeLessThanOrEqual(60)
    const glob = await callTool(capped, 'glob', { pattern: '*.txt' }, tree)
    expect(Buffer.byteLength(pageOf(glob.content))).toBeLessThanOrEqual(60)
    expect(glob.content).toContain('(Showing 8 of 10 paths')
  })
})
