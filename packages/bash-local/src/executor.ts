// createLocalBash: the BashExecutor that runs commands on this machine.
import type { BashExecutor } from '@dsh/core'
import { parseLocalBashOptions, type LocalBashOptions } from './config.js'
import { resolveRequest } from './resolve.js'
import { runSpec } from './run.js'

/**
 * The local `BashExecutor`, for hosts that wire seams by hand; throws `BASH_INVALID_CONFIG` for bad
 * options. Nothing local leaks into what it returns: a sandboxed or remote backend returns the same types.
 */
export function createLocalBash(options?: LocalBashOptions): BashExecutor {
  const settings = parseLocalBashOptions(options)
  return {
    resolve: (request) => resolveRequest(request, settings),
    run: (spec) => runSpec(spec, settings),
  }
}
