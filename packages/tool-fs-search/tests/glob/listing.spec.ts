import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { parseGlobListing, sortNewestFirst } from '../../src/glob/listing.js'
import { statRecords } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { callTool, loadRealHarness, NAMES_TREE, pageOf, scratchDirs, writeMtimeTree, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('the glob listing', () => {
  it('parses mtime records, including names with tabs and newlines', () => {
    expect(parseGlobListing(statRecords(['1700000000.5', 'a\tb'], ['1700000001', 'new\nline'], ['1700000002.1234567890', 'find']))).toEqual(
      [
        { name: 'a\tb', seconds: 1_700_000_000, nanos: 500_000_000 },
        { name: 'new\nline', seconds: 1_700_000_001, nanos: 0 },
        { name: 'find', seconds: 1_700_000_002, nanos: 123_456_789 },
      ],
    )
  })

  it.each(['1\tno-terminator', '1\t\0', 'x\0y\tz\0', 'soon\tname\0'])('fails on the malformed listing %j', (listing) => {
    expect(() => parseGlobListing(listing)).toThrow(/^glob could not parse the file listing near /)
  })

  it('reads an mtime before 1970 as negative, fraction and all', () => {
    expect(parseGlobListing(statRecords(['-315619200.25', 'old']))).toEqual([{ name: 'old', seconds: -315_619_200, nanos: -250_000_000 }])
    const files = parseGlobListing(statRecords(['-1.25', 'a'], ['-1.5', 'b'], ['0', 'c']))
    expect(sortNewestFirst(files).map((f) => f.name)).toEqual(['c', 'a', 'b'])
  })

  it('sorts newest first, then by name, deterministically', () => {
    const files = parseGlobListing(
      statRecords(['10.000000001', 'b'], ['10.000000002', 'a'], ['11', 'z'], ['10.000000001', 'a'], ['10.000000001', 'a']),
    )
    expect(sortNewestFirst(files).map((f) => `${f.seconds}.${f.nanos}:${f.name}`)).toEqual([
      '11.0:z',
      '10.2:a',
      '10.1:a',
      '10.1:a',
      '10.1:b',
    ])
  })

  it('orders equal mtimes by name whichever way they arrive', () => {
    const at = (name: string) => ({ name, seconds: 5, nanos: 0 })
    expect(sortNewestFirst([at('b'), at('a'), at('c')]).map((f) => f.name)).toEqual(['a', 'b', 'c'])
    expect(sortNewestFirst([at('c'), at('a'), at('b')]).map((f) => f.name)).toEqual(['a', 'b', 'c'])
  })

  it.each([[{ stdout: 'no-tab-here\0' }, 'SEARCH_FAILED', /^glob could not parse the file listing near "no-tab-here\\u0000"/]])(
    'answers %j with %s',
    async (scripted, errorCode, content) => {
      const { glob } = await fakeHarness(() => scripted)
      const result = await glob({ pattern: '*', path: 'nope' })
      expect(result).toMatchObject({ isError: true, errorCode })
      expect(result.content).toMatch(content)
    },
  )
})

describe('order and determinism (docs/design.md#glob-lists-newest-first, docs/design.md#deterministic-pages)', () => {
  const tree = scratchDir('order')
  beforeAll(() => writeMtimeTree(tree))

  it('glob lists newest first, ties by path ascending', async () => {
    const result = await callTool(harness, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content).toBe(['b-new.txt', 'tie-a.txt', 'tie-b.txt', 'a-mid.txt', 'c-old.txt'].join('\n'))
  })

  it('glob breaks equal mtimes by path, so the capped page is the same set every time', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { globMaxResults: 7 } })
    const result = await callTool(capped, 'glob', { pattern: '*.log' }, tree)
    // mtime BASE+2 belongs to f2, f5, f8 of each dir: 18 files; the first 7 by path.
    expect(pageOf(result.content).split('\n')).toEqual([
      'many/d0/f2.log',
      'many/d0/f5.log',
      'many/d0/f8.log',
      'many/d1/f2.log',
      'many/d1/f5.log',
      'many/d1/f8.log',
      'many/d2/f2.log',
    ])
  })
})

describe('names and targets', () => {
  const tree = scratchDir('names')
  beforeAll(() => writeTree(tree, NAMES_TREE))

  it('glob lists a file name with a newline as one JSON-quoted item (docs/design.md#nul-separated-records)', async () => {
    const result = await callTool(harness, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content.split('\n').sort()).toEqual(['"line\\nbreak.txt"', 'plain.txt', 'sub/inner.txt'])
  })
})
