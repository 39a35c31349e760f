import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import type { GrepMatch } from '../../src/grep/parse.js'
import { formatGroups, formatRow, groupByFile } from '../../src/grep/rows.js'
import { rgLines } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { callTool, FORGE_TREE, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

const match = (path: string, lineNumber: number): GrepMatch => ({ path, lineNumber, line: 'hit', lineCut: false })

describe('formatGroups', () => {
  it('formats thousands of rows exactly as one join would, across its batches', () => {
    const matches = [
      ...Array.from({ length: 4095 }, (_, i) => match('a', i + 1)),
      ...Array.from({ length: 5000 }, (_, i) => match('b', i + 1)),
    ]
    const groups = groupByFile(matches)
    expect(formatGroups(groups)).toBe(groups.map((g) => [g.path, ...g.matches.map(formatRow)].join('\n')).join('\n\n'))
    // A header and 4,095 rows fill one batch exactly, leaving none for the end.
    const exact = groupByFile(matches.slice(0, 4095))
    expect(formatGroups(exact)).toBe(['a', ...exact[0]!.matches.map(formatRow)].join('\n'))
  })
})

describe('rows a repository cannot forge', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('forge')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, FORGE_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('does not show a line that ends in the cut marker text as cut, nor a cut line as whole', async () => {
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(['a', 1, 'plain […line cut]'], ['b', 1, `${'x'.repeat(40)}`]) }), {
      grepMaxLineBytes: 20,
    })
    expect((await grep({ pattern: 'x' })).content).toBe(
      `Found 2 matches\n\na\nLine 1: plain […line cut]\n\nb\nLine 1 (cut): ${'x'.repeat(20)}`,
    )
  })

  it('a line that ends in the text of the cut marker does not read as cut', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '{marker,long}.txt' }, tree)
    const rows = result.content.split('\n').filter((line) => line.startsWith('Line '))
    expect(rows[0]).toMatch(/^Line 1 \(cut\): needle x+$/)
    expect(rows[1]).toBe('Line 1: needle […line cut]')
  })
})
