// Whether the executor keeps as much rg output as the config allows.
import type { BashExecutor, Logger } from '@dsh/core'
import type { SearchConfig } from '../../config.js'

/**
 * Warns when the executor keeps less stdout than `rawOutputMaxBytes`: it caps every request at its
 * own ceiling, so searches would stop at that smaller size. Asked of `resolve`, which applies it.
 */
export async function warnAboveOutputCap(bash: BashExecutor, config: SearchConfig, logger: Logger): Promise<void> {
  const cap = config.rawOutputMaxBytes
  const applied = (await bash.resolve({ command: 'true', stdoutMaxBytes: cap })).stdoutMaxBytes
  if (applied < cap) {
    logger.warn(
      `tool-fs-search: rawOutputMaxBytes is ${cap}, but the bash executor keeps at most ${applied} bytes of output; searches stop at ${applied} bytes`,
    )
  }
}
