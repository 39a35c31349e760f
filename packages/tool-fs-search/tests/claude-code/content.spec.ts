import { describe, expect, it } from 'vitest'
import { contentEntries, countContext, pageRecords } from '../../src/claude-code/content.js'
import { lineNumberOf } from '../../src/engine/grep/records.js'
import { shownOf } from '../engine/grep/parsed.js'

// rg's `--null` content output with context: a match `path NUL n:text`, a context line `path NUL n-text`.
const OUTPUT = 'D\0a.ts\u00001-one\na.ts\u00002:two\na.ts\u00005:five\nb.ts\u00007-seven\nb.ts\u00008:eight\n'
const matches = shownOf(OUTPUT, { context: true })

describe('countContext', () => {
  it('tells matches from context lines', () => {
    expect(countContext(matches)).toEqual({ matchLines: 3, contextLines: 2 })
  })
})

describe('contentEntries', () => {
  it('writes each row with what goes before it: the file when it opens, a blank line between files, -- at a gap', () => {
    expect([...contentEntries(matches, 0, { numbered: true, gaps: true })].join('')).toBe(
      'a.ts\nLine 1- one\nLine 2: two\n--\nLine 5: five\n\nb.ts\nLine 7- seven\nLine 8: eight',
    )
  })

  it('marks no gap when no context was asked for, and drops the numbers without -n', () => {
    expect([...contentEntries(matches, 0, { numbered: false, gaps: false })].join('')).toBe(
      'a.ts\n- one\n: two\n: five\n\nb.ts\n- seven\n: eight',
    )
  })

  it('names the file of the first row of a page that starts inside it', () => {
    expect([...contentEntries(matches, 2, { numbered: true, gaps: true })]).toEqual([
      'a.ts\nLine 5: five',
      '\n\nb.ts\nLine 7- seven',
      '\nLine 8: eight',
    ])
    expect([...contentEntries(matches, 4, { numbered: true, gaps: true })]).toEqual(['b.ts\nLine 8: eight'])
    expect([...contentEntries(matches, 5, { numbered: true, gaps: true })]).toEqual([])
  })
})

describe('pageRecords', () => {
  it('gives the records a page of entries shows, with their files', () => {
    const shown = pageRecords(matches, 1, 3).map(({ file, record }) => `${file.path}:${lineNumberOf(matches.bytes, record)}`)
    expect(shown).toEqual(['a.ts:2', 'a.ts:5', 'b.ts:7'])
    expect(pageRecords(matches, 4, 10)).toHaveLength(1)
  })
})
