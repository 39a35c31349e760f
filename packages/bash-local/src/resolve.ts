// resolve(): a request becomes a spec with every limit decided and the environment scrubbed.
import type { BashRequest, BashSpec } from '@dsh/core'
import type { LocalBashSettings } from './config.js'
import { scrubEnvironment } from './environment.js'
import { BashError } from './errors.js'
import { resolveWorkdir } from './workdir.js'

/** Turns a request into a spec: the workdir checked, every limit defaulted and capped, the environment scrubbed. */
export async function resolveRequest(request: BashRequest, settings: LocalBashSettings): Promise<BashSpec> {
  const { command, onStdoutOverflow = 'drain' } = request
  // bash -c takes its command as one argv string, and argv strings end at NUL.
  if (typeof command !== 'string' || command.includes('\0')) {
    throw new BashError('BASH_INVALID_REQUEST', 'command must be a string without NUL characters')
  }
  if (onStdoutOverflow !== 'drain' && onStdoutOverflow !== 'kill') {
    throw new BashError('BASH_INVALID_REQUEST', `onStdoutOverflow must be 'drain' or 'kill', got ${String(onStdoutOverflow)}`)
  }
  if (request.stdoutSink !== undefined && typeof request.stdoutSink !== 'function') {
    throw new BashError('BASH_INVALID_REQUEST', 'stdoutSink must be a function that takes a chunk of bytes')
  }
  const spec: BashSpec = {
    command,
    workdir: await resolveWorkdir(request.workdir, settings.cwd),
    timeoutMs: limit('timeoutMs', request.timeoutMs, settings.defaultTimeoutMs, settings.maxTimeoutMs),
    // The maximum bounds memory; a sink keeps nothing here, so its consumer's own bound stands.
    stdoutMaxBytes: limit(
      'stdoutMaxBytes',
      request.stdoutMaxBytes,
      settings.defaultStdoutMaxBytes,
      request.stdoutSink === undefined ? settings.maxStdoutMaxBytes : Number.MAX_SAFE_INTEGER,
    ),
    stderrMaxBytes: limit('stderrMaxBytes', request.stderrMaxBytes, settings.defaultStderrMaxBytes, settings.maxStderrMaxBytes),
    onStdoutOverflow,
    env: Object.freeze(scrubEnvironment(process.env, settings.env, settings.envSet)),
  }
  // The very same signal object, so an abort after resolve still reaches run.
  return {
    ...spec,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.stdoutSink === undefined ? {} : { stdoutSink: request.stdoutSink }),
  }
}

/** The requested value capped at `max`, or `fallback` when none was requested. */
function limit(field: string, requested: unknown, fallback: number, max: number): number {
  if (requested === undefined) return fallback
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested <= 0) {
    throw new BashError('BASH_INVALID_REQUEST', `${field} must be a positive integer, got ${JSON.stringify(requested)}`)
  }
  return Math.min(requested, max)
}
