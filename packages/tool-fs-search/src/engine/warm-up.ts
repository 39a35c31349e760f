// What a long-lived process makes ready in a workspace before its first search there (docs/design.md#a-warm-process-loads-its-index-first).
import type { SearchWarmUp, ToolExecContext } from '@dsh/core'
import { searchExclusions } from './access.js'
import type { SearchContext } from './context.js'
import { quietMarkOf } from './index-plan.js'
import { planLinks } from './links.js'

/**
 * The `searchWarmUp` service: the content index that covers `dir` first (its load and its watcher),
 * then the link scan a search of `dir` as a whole would walk, taken while the index's watcher vouches
 * for the tree, so the first search finds it remembered and, with nothing changed, checks nothing. Only
 * where link scans are remembered; a scan that fails or a directory the policy refuses is left to the
 * first search, which answers for it.
 */
export function createSearchWarmUp(ctx: SearchContext): SearchWarmUp {
  return {
    async prepare({ dir, signal }) {
      await ctx.searchIndex?.()?.prepare?.({ dir, signal })
      if (ctx.linkScans?.() === undefined || signal.aborted) return
      // As a call of the whole workspace is: its directory the session's, `.` its target.
      const exec: ToolExecContext = { signal, name: 'grep', callId: 'warm-up', agent: { session: { header: { id: '', cwd: dir } } } }
      try {
        const access = ctx.access()
        const excludes = await searchExclusions(access, '.', exec)
        await planLinks(ctx, exec, '.', ctx.fs?.(), access, quietMarkOf(ctx, exec, '.'), excludes)
      } catch {
        // Refused, gone, stopped: the first search meets it again and says so.
      }
    },
  }
}
