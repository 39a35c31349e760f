// A call whose signal fired or whose run was stopped fails with SEARCH_ABORTED, and builds nothing.
import { HarnessError, type BashRunResult, type ToolExecContext } from '@dsh/core'
import { SearchError } from '../errors.js'

/**
 * Fails with SEARCH_ABORTED once the call's signal has fired or the run was stopped. A result built
 * after that is thrown away by the registry, so building it, let alone saving a spill for it, would
 * leave an orphan file behind a call reported as timed out.
 */
export function throwIfAborted(exec: ToolExecContext, run?: BashRunResult): void {
  if (!exec.signal.aborted && run?.stop !== 'abort' && run?.stop !== 'timeout') return
  const reason: unknown = exec.signal.reason
  // A fired signal says why itself: the caller may cancel just as the executor's limit runs out.
  const timedOut = exec.signal.aborted ? reason instanceof HarnessError && reason.code === 'TOOL_TIMEOUT' : run?.stop === 'timeout'
  const why = timedOut ? 'timed out' : 'was cancelled'
  const next = timedOut ? ' Narrow the pattern or path and search again.' : ''
  throw new SearchError('SEARCH_ABORTED', `${exec.name} ${why} before rg finished; no result was produced.${next}`)
}
