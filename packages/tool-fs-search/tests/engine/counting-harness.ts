// A real harness over bash-local that counts the link scans walking a whole tree, for the tests of
// the remembered scan and the warm-up (docs/design.md#the-link-scan-is-remembered).
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type Services } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'

/** What a counting harness shares with others, and what it is given in place of its own. */
export interface CountingOptions {
  /** `rememberLinkScans`; the default when undefined. */
  remember?: boolean | undefined
  shared?: { memory: toolFsSearch.LinkScanMemory; settleMs?: number; watch?: boolean }
  /** Services the host provides; an `fs` among them stands in for fs-local's. */
  extra?: Partial<Pick<Services, 'searchIndex' | 'access' | 'searchWarmUp' | 'fs'>>
  /** `tool-fs-search.index`; the default when undefined. */
  index?: 'auto' | 'off'
}

/** A harness with the search tools whose `walks()` counts the finds that walk the tree from `.`. */
export async function countingHarness(
  spillRoot: string,
  { remember, shared, extra = {}, index }: CountingOptions = {},
): Promise<{ harness: Harness; walks: () => number }> {
  const local = bashLocal.createLocalBash()
  let walks = 0
  const settle = {
    ...(shared?.settleMs === undefined ? {} : { linkScanSettleMs: shared.settleMs }),
    ...(shared?.watch === undefined ? {} : { watchLinkScans: shared.watch }),
  }
  const harness = await loadHarness({
    plugins: extra.fs === undefined ? [spillLocal, fsLocal, toolFsSearch] : [spillLocal, toolFsSearch],
    services: {
      ...extra,
      ...(shared === undefined ? {} : { linkScanMemory: shared.memory }),
      bash: {
        resolve: (request) => local.resolve(request),
        run: (spec) => {
          if (spec.command.includes('-type l') && /^set -- \.$/m.test(spec.command) && !spec.command.includes('-maxdepth 1')) walks++
          return local.run(spec)
        },
      },
    },
    config: {
      'spill-local': { root: spillRoot },
      'tool-fs-search': {
        ...(remember === undefined ? {} : { rememberLinkScans: remember }),
        ...(index === undefined ? {} : { index }),
        ...settle,
      },
    },
  })
  return { harness, walks: () => walks }
}
