// glob's presentation meta (docs/design.md#the-search-card): the retained page projected for the search card.
import type { ItemRetention, SearchIndexUse } from '@dsh/core'
import { capMetaBytes, type SearchPathsMeta } from '../presentation.js'

/** glob's meta from the retention the page text was formatted from, bounded to `maxBytes`; `incomplete` and `index` as for grep's. */
export function globSearchMeta(
  retained: ItemRetention<string>,
  maxBytes: number,
  incomplete: boolean,
  index?: SearchIndexUse,
): SearchPathsMeta {
  return capMetaBytes(
    {
      shape: 'paths',
      paths: retained.items,
      truncated: retained.truncated,
      total: retained.total,
      incomplete,
      ...(index === undefined ? {} : { index }),
    },
    maxBytes,
  )
}
