import { describe, expect, it } from 'vitest'
import { globSearchMeta } from '../../../src/dsh/glob/meta.js'
import { grepSearchMeta } from '../../../src/dsh/grep/meta.js'
import { retainGrepMatches } from '../../../src/dsh/grep/retain.js'
import { rgLines } from '../../fake-bash.js'
import { shownOf } from '../../engine/grep/parsed.js'

const roomy = { maxMatches: 100, maxBytes: 100_000, maxPerFile: 50 }

describe('globSearchMeta', () => {
  it('is the retained page, with the total before the cap', () => {
    const retained = { items: ['new.ts', 'old.ts'], kept: 2, total: 7, truncated: true }
    expect(globSearchMeta(retained, 65_536, false)).toEqual({
      shape: 'paths',
      paths: ['new.ts', 'old.ts'],
      truncated: true,
      total: 7,
      incomplete: false,
    })
  })
  it('says whether the search read everything, whatever the page holds', () => {
    const retained = { items: ['a.ts'], kept: 1, total: 1, truncated: false }
    expect(globSearchMeta(retained, 65_536, true)).toMatchObject({ truncated: false, incomplete: true })
    expect(grepSearchMeta(retainGrepMatches(shownOf(rgLines()), roomy), 65_536, true)).toMatchObject({ total: 0, incomplete: true })
  })
})
