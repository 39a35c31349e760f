// An executor whose every command fails as a broken one does: a word on stderr and a non-zero exit.
import type { BashExecutor } from '@dsh/core'

/** Resolves as `bash` does, and runs every command as `echo <why> >&2; exit 3`. */
export function failingBash(bash: BashExecutor, why: string): BashExecutor {
  return {
    resolve: (request) => bash.resolve(request),
    run: (spec) => bash.run({ ...spec, command: `echo ${why} >&2; exit 3` }),
  }
}
