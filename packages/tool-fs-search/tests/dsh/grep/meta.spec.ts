import { describe, expect, it } from 'vitest'
import { formatGrepPage } from '../../../src/dsh/grep/page.js'
import { retainGrepMatches } from '../../../src/dsh/grep/retain.js'
import { grepSearchMeta } from '../../../src/dsh/grep/meta.js'
import { rgLines } from '../../fake-bash.js'
import { shownOf } from '../../engine/grep/parsed.js'

const NO_NOTES = { incomplete: { paths: [], messages: [] }, stderrCut: false, binary: [], binaryStopped: [], lossy: 0, escaped: 0 }
const roomy = { maxMatches: 100, maxBytes: 100_000, maxPerFile: 50 }

describe('grepSearchMeta', () => {
  it('groups the page in its order: files as the page sorts them, lines as each file orders them', () => {
    const shown = shownOf(rgLines(['b.ts', 9, 'b nine'], ['a.ts', 3, 'a three'], ['b.ts', 2, 'b two']))
    const retained = retainGrepMatches(shown, roomy)
    expect(grepSearchMeta(retained, 65_536, false)).toEqual({
      shape: 'matches',
      files: [
        { path: 'a.ts', matches: [{ lineNumber: 3, line: 'a three' }] },
        {
          path: 'b.ts',
          matches: [
            { lineNumber: 2, line: 'b two' },
            { lineNumber: 9, line: 'b nine' },
          ],
        },
      ],
      truncated: false,
      total: 3,
      incomplete: false,
    })
    // The page text lists the same files in the same order.
    expect(formatGrepPage(retained, undefined, NO_NOTES)).toBe(
      'Found 3 matches\n\na.ts\nLine 3: a three\n\nb.ts\nLine 2: b two\nLine 9: b nine',
    )
  })

  it('reports the total before the cap and carries the retention truncated', () => {
    const shown = shownOf(rgLines(['a', 1, 'x'], ['a', 2, 'x'], ['b', 1, 'x'], ['b', 2, 'x'], ['c', 1, 'x']))
    const meta = grepSearchMeta(retainGrepMatches(shown, { maxMatches: 3, maxBytes: 10_000, maxPerFile: 1 }), 65_536, false)
    expect(meta).toEqual({
      shape: 'matches',
      files: [
        { path: 'a', matches: [{ lineNumber: 1, line: 'x' }] },
        { path: 'b', matches: [{ lineNumber: 1, line: 'x' }] },
        { path: 'c', matches: [{ lineNumber: 1, line: 'x' }] },
      ],
      truncated: true,
      total: 5,
      incomplete: false,
    })
  })

  it('shows each line as the page did: cut once to its preview budget, controls escaped', () => {
    const shown = shownOf(rgLines(['a', 1, 'é'.repeat(10)], ['a', 2, 'a\u0007b']), { maxLineBytes: 7 })
    const retained = retainGrepMatches(shown, roomy)
    const meta = grepSearchMeta(retained, 65_536, false)
    expect(meta.files[0]!.matches).toEqual([
      { lineNumber: 1, line: 'ééé' },
      { lineNumber: 2, line: 'a\\u0007b' },
    ])
    expect(formatGrepPage(retained, undefined, NO_NOTES)).toContain('Line 1 (cut): ééé\nLine 2: a\\u0007b')
  })

  it('is the empty card for no match', () => {
    expect(grepSearchMeta(retainGrepMatches(shownOf(rgLines()), roomy), 65_536, false)).toEqual({
      shape: 'matches',
      files: [],
      truncated: false,
      total: 0,
      incomplete: false,
    })
  })
})
