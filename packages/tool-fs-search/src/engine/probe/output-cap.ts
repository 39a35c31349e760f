// Whether the executor keeps as much rg output as the config allows.
import type { BashExecutor, Logger } from '@dsh/core'
import type { SearchConfig } from '../../config.js'

/**
 * Warns when the executor hands a sink less stdout than `rawOutputMaxBytes`: it caps the request at
 * its own ceiling, so searches would stop at that smaller size. Asked of `resolve`, which applies it,
 * with a sink as every search has one (a sink's output is not the executor's memory to bound).
 */
export async function warnAboveOutputCap(bash: BashExecutor, config: SearchConfig, logger: Logger): Promise<void> {
  const cap = config.rawOutputMaxBytes
  // resolve never calls the sink: it is there so the request is shaped as a search's.
  /* v8 ignore next */
  const stdoutSink = (): void => undefined
  const applied = (await bash.resolve({ command: 'true', stdoutMaxBytes: cap, stdoutSink })).stdoutMaxBytes
  if (applied < cap) {
    logger.warn(
      `tool-fs-search: rawOutputMaxBytes is ${cap}, but the bash executor keeps at most ${applied} bytes of output; searches stop at ${applied} bytes`,
    )
  }
}
