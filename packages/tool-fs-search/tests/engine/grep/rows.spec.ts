import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { retainEveryMatch } from '../../../src/dsh/grep/retain.js'
import { formatGroups, groupBlocks } from '../../../src/engine/grep/rows.js'
import { rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, FORGE_TREE, loadRealHarness, scratchDirs, writeTree } from '../../real-harness.js'
import { shownOf } from './parsed.js'

/** The blocks `groupBlocks` yields, each copied as it comes (the generator refills one buffer). */
function joinedBlocks(matches: ReturnType<typeof shownOf>): { text: string; sizes: number[] } {
  const blocks: Buffer[] = []
  for (const block of groupBlocks(matches)) blocks.push(Buffer.from(block))
  return { text: Buffer.concat(blocks).toString(), sizes: blocks.map((block) => block.length) }
}

describe('groupBlocks', () => {
  it('writes exactly the text formatGroups gives, across blocks: cut, escaped and odd rows too', () => {
    const records: [string, number | string, string][] = [
      ...Array.from({ length: 30_000 }, (_, i): [string, number, string] => [`file${i % 7}.ts`, i + 1, `hit ${'é'.repeat(i % 40)}`]),
      ['odd.ts', '007', 'leading zero'],
      ['esc.ts', 3, 'a\u001bb'],
      ['cut.ts', 1, `${'x'.repeat(3000)}`],
      ['cut.ts', 2, 'y [... omitted end of long line]'],
    ]
    const matches = shownOf(`D\0${records.map(([path, line, text]) => `${path}\0${line}:${text}\n`).join('')}`, {
      chunkBytes: 65_536,
    })
    const { text, sizes } = joinedBlocks(matches)
    expect(text).toBe(formatGroups(matches, retainEveryMatch(matches).groups))
    expect(sizes.length).toBeGreaterThan(1)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1 << 20)
  })

  it('writes lines of every length around a word and around the short-line bound, across blocks', () => {
    // Lines of 0 to 140 bytes, over and over, so rows of each length meet a block's end somewhere.
    const records = Array.from({ length: 12_000 }, (_, i): [string, number, string] => [`f${i % 3}.ts`, i + 1, 'x'.repeat(i % 141)])
    const matches = shownOf(rgLines(...records), { chunkBytes: 1 << 20 })
    const { text, sizes } = joinedBlocks(matches)
    expect(text).toBe(formatGroups(matches, retainEveryMatch(matches).groups))
    expect(sizes.length).toBeGreaterThan(3)
  })

  it('yields a row or a path larger than a block whole, between blocks', () => {
    const long = 'z'.repeat(1_100_000)
    const matches = shownOf(rgLines(['a', 1, 'short'], [`m${long}`, 2, 'x'], ['n', 1, long]), {
      chunkBytes: 65_536,
      maxLineBytes: 2_000_000,
    })
    const { text, sizes } = joinedBlocks(matches)
    expect(text).toBe(formatGroups(matches, retainEveryMatch(matches).groups))
    expect(sizes).toEqual([15, 1_100_003, 13, 1_100_009])
  })

  it('fills the same blocks with the files of `rest`, each after a blank line, and counts their rows', () => {
    const first = shownOf(rgLines(['a.ts', 1, 'one'], ['a.ts', 2, 'two']))
    const rest = ['b.ts', 'c.ts', 'd.ts'].map((path, i) => shownOf(rgLines([path, i + 1, `hit ${i}`])))
    const asked: number[] = []
    const progress = { rows: 0 }
    const blocks: Buffer[] = []
    const files = function* () {
      for (const [i, file] of rest.entries()) {
        asked.push(i)
        yield file
      }
    }
    for (const block of groupBlocks(first, { progress, rest: files() })) blocks.push(Buffer.from(block))
    const text = [first, ...rest].map((matches) => formatGroups(matches, retainEveryMatch(matches).groups)).join('\n\n')
    expect(Buffer.concat(blocks).toString()).toBe(text)
    // One block for every small file, not one each: a block a file costs a million files a million buffers.
    expect(blocks).toHaveLength(1)
    expect(asked).toEqual([0, 1, 2])
    expect(progress.rows).toBe(5)
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
