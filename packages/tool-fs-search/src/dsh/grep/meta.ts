// grep's presentation meta (docs/design.md#the-search-card): the retained page projected for the search card.
import type { SearchIndexUse } from '@dsh/core'
import { lineNumberOf } from '../../engine/grep/records.js'
import { recordsOf, shownLine } from '../../engine/grep/matches.js'
import { capMetaBytes, type SearchMatchesMeta } from '../presentation.js'
import type { RetainedGrep } from './retain.js'

/**
 * grep's meta from the retention the page text was formatted from: the same files in the same order,
 * each with the same first matches and the same (cut, escaped) lines, then bounded to `maxBytes`.
 * `incomplete`: the search did not read everything (it timed out, or rg could not read some paths);
 * `index`: how a content index took part, when one was consulted.
 */
export function grepSearchMeta(retained: RetainedGrep, maxBytes: number, incomplete: boolean, index?: SearchIndexUse): SearchMatchesMeta {
  const { matches } = retained
  const files = retained.groups.map(({ file, count }) => {
    const shown = matches.files[file]!
    return {
      path: shown.path,
      matches: recordsOf(matches, shown, count).map((record) => ({
        lineNumber: lineNumberOf(matches.bytes, record),
        line: shownLine(matches, record),
      })),
    }
  })
  return capMetaBytes(
    {
      shape: 'matches',
      files,
      truncated: retained.truncated,
      total: retained.total,
      incomplete,
      ...(index === undefined ? {} : { index }),
    },
    maxBytes,
  )
}
