// What a long-lived process makes ready in a workspace before its first search there (docs/design.md#a-warm-process-loads-its-index-first).
import { AccessError, HarnessError, type SearchWarmUp, type ToolExecContext } from '@dsh/core'
import { searchExclusions } from './access.js'
import type { SearchContext } from './context.js'
import { indexOf, quietMarkOf } from './index-plan.js'
import { rememberLinkScan } from './links.js'

/**
 * The `searchWarmUp` service: the content index that covers `dir` first (its load and its watcher),
 * unless the config turns the index off, then the link scan a search of `dir` as a whole would walk,
 * taken while the index's watcher vouches for the tree, so the first search finds it remembered and,
 * with nothing changed, checks nothing. Only where link scans are remembered; a directory the policy
 * refuses (an `AccessError`) is not walked, and a scan that fails is left to the first search, which
 * answers for it. Any other rejection, the policy's own failure included, rejects.
 */
export function createSearchWarmUp(ctx: SearchContext): SearchWarmUp {
  return {
    async prepare({ dir, signal }) {
      await indexOf(ctx)?.prepare?.({ dir, signal })
      if (signal.aborted) return
      // As a call of the whole workspace is: its directory the session's, `.` its target.
      const exec: ToolExecContext = { signal, name: 'grep', callId: 'warm-up', agent: { session: { header: { id: '', cwd: dir } } } }
      // A refused workspace's first search says so itself; a policy that fails to answer is a fault, not a refusal.
      try {
        await searchExclusions(ctx.access(), '.', exec)
      } catch (error) {
        if (!(error instanceof AccessError)) throw error
        return
      }
      try {
        await rememberLinkScan(ctx, exec, '.', ctx.fs?.(), quietMarkOf(ctx, exec, '.'))
      } catch (error) {
        // Gone, unreadable, stopped: the first search meets it again and says so. Anything else is a fault.
        if (!(error instanceof HarnessError)) throw error
      }
    },
  }
}
