// The index's failure vocabulary.
import { HarnessError } from '@dsh/core'

/** The codes `@dsh/index-local` throws. */
export type IndexErrorCode =
  'INDEX_INVALID_CONFIG' | 'INDEX_REFUSED' | 'INDEX_TOO_LARGE' | 'INDEX_BUILD_FAILED' | 'INDEX_NOT_A_DIRECTORY' | 'INDEX_CANCELLED'

/** An expected failure of the local index; a filesystem error rides as `cause`. */
export class IndexError extends HarnessError<IndexErrorCode> {}

/** Fails a build whose index would pass `indexMaxBytes`. */
export function tooLarge(maxBytes: number): never {
  throw new IndexError('INDEX_TOO_LARGE', `the index would pass indexMaxBytes (${maxBytes} bytes); raise it or index a smaller tree`)
}

/** What a build or an update cancelled by its signal (Ctrl-C) throws: what it had written is removed, so the index is as it was. */
export function cancelled(): IndexError {
  return new IndexError('INDEX_CANCELLED', 'cancelled; the index is as it was')
}

/** Throws `cancelled()` once `signal` is aborted. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw cancelled()
}
