// The local executor's failure vocabulary.
import { HarnessError } from '@dsh/core'

/** The codes `@dsh/bash-local` throws. */
export type BashErrorCode =
  | 'BASH_INVALID_CONFIG'
  | 'BASH_INVALID_REQUEST'
  | 'BASH_WORKDIR_MISSING'
  | 'BASH_WORKDIR_NOT_DIRECTORY'
  | 'BASH_WORKDIR_INACCESSIBLE'
  | 'BASH_SPAWN_FAILED'

/** An expected failure of the local bash executor: bad options, a bad request, or a shell that cannot start. */
export class BashError extends HarnessError<BashErrorCode> {}
