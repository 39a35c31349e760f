import { describe, expect, it } from 'vitest'
import { countEntries, fileEntries, showCounts } from '../../src/claude-code/files.js'

describe('fileEntries', () => {
  it('writes the files from any start, one per line, the first without a separator', () => {
    const paths = { count: 3, at: (index: number) => ['c', 'a', 'b'][index]!, lossy: 0 }
    expect([...fileEntries(paths as never, 0)]).toEqual(['c', '\na', '\nb'])
    expect([...fileEntries(paths as never, 2)]).toEqual(['b'])
    expect([...fileEntries(paths as never, 3)]).toEqual([])
  })
})

describe('showCounts', () => {
  it('sorts by the shown path and adds together two raw names shown the same', () => {
    const counts = showCounts(
      [
        { path: 'b', count: 2, replaced: false },
        { path: 'a\u00ff', count: 1, replaced: true },
        { path: 'a\u00fe', count: 4, replaced: true },
        { path: 'A', count: 1, replaced: false },
      ],
      (path) => `dir/${path.replace(/[\u00fe\u00ff]/, '\ufffd')}`,
    )
    expect(counts).toEqual([
      { path: 'dir/A', count: 1, replaced: false },
      { path: 'dir/a\ufffd', count: 5, replaced: true },
      { path: 'dir/b', count: 2, replaced: false },
    ])
  })

  it('keeps a merged name marked replaced when either raw name was', () => {
    const counts = showCounts(
      [
        { path: 'x', count: 1, replaced: false },
        { path: 'y', count: 1, replaced: true },
      ],
      () => 'same',
    )
    expect(counts).toEqual([{ path: 'same', count: 2, replaced: true }])
  })
})

describe('countEntries', () => {
  it('writes path:count from any start', () => {
    const counts = [
      { path: 'a', count: 1, replaced: false },
      { path: 'b:c', count: 20, replaced: false },
    ]
    expect([...countEntries(counts, 0)]).toEqual(['a:1', '\nb:c:20'])
    expect([...countEntries(counts, 1)]).toEqual(['b:c:20'])
  })
})
