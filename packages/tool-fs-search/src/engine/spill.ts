// Saving a capped search's complete result (docs/design.md#the-spill-store), or saying why it was not.
import { errorMessage, type SpillStore, type ToolExecContext } from '@dsh/core'
import { throwIfAborted } from './abort.js'

/**
 * Whether the complete formatted result was saved, and where, or why not. `part`: only the head was
 * saved, since the whole would pass `spillMaxBytes` (docs/design.md#results-bigger-than-memory).
 */
export type SpillOutcome = { saved: true; locator: string; retrievalHint: string; part?: SavedPart } | { saved: false; reason: string }

/** How much of a result a spill cut at `spillMaxBytes` holds. */
export interface SavedPart {
  saved: number
  total: number
  /** What is counted: `matches`, `paths`. */
  unit: string
  maxBytes: number
}

/**
 * Saves a capped search's complete formatted result in the tool-owned spill, as blocks of its UTF-8
 * bytes streamed to the store (docs/design.md#streamed-spills). A missing store, a missing owner or a
 * failed save is not an error: the inline page stands and the footer says so. The blocks are made only
 * when they can be saved: for a million matches the result is the largest thing a call makes. An
 * aborted call fails instead: the registry discards its result, so a file saved for it would be an orphan.
 */
export async function saveFormattedResult(
  store: SpillStore | undefined,
  exec: ToolExecContext,
  blocks: () => Iterable<Uint8Array>,
  filename: 'grep-results.txt' | 'glob-results.txt',
): Promise<SpillOutcome> {
  throwIfAborted(exec)
  if (store === undefined) return { saved: false, reason: 'no spill store is configured' }
  const owner = exec.agent?.session.header.id
  if (owner === undefined || owner === '') return { saved: false, reason: 'the call has no session to own the file' }
  try {
    const { locator, retrievalHint } = await store.saveStream({
      owner,
      source: { toolName: exec.name, callId: exec.callId, label: 'result' },
      blocks: blocks(),
      filename,
    })
    return { saved: true, locator, retrievalHint }
  } catch (error) {
    return { saved: false, reason: `saving failed: ${errorMessage(error)}` }
  }
}
