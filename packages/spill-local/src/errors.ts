// The spill store's failure vocabulary.
import { HarnessError } from '@dsh/core'

/** The codes `@dsh/spill-local` throws. */
export type SpillErrorCode =
  'SPILL_INVALID_CONFIG' | 'SPILL_WRITE_FAILED' | 'SPILL_FOREIGN_DIR' | 'SPILL_PATH_ESCAPE' | 'SPILL_NOT_FOUND' | 'SPILL_READ_FAILED'

/** An expected failure of the filesystem spill store; the filesystem error rides as `cause`. */
export class SpillError extends HarnessError<SpillErrorCode> {}
