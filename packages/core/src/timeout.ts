// The timeout policy: a deadline and the caller's cancellation, combined into one signal.
import { CoreError, HarnessError } from './errors.js'

/** How `runWithDeadline` bounds one piece of work. */
export interface DeadlineOptions {
  /** Abort after this long; no deadline when omitted. */
  timeoutMs?: number | undefined
  /** The caller's cancellation; whichever of it and the deadline fires first wins. */
  signal?: AbortSignal | undefined
  /** What the failure messages call the work, e.g. `tool grep`. */
  label: string
  /**
   * After the abort, how long the work may take to settle with its own `HarnessError` (a tool's
   * `SEARCH_ABORTED` says more than the policy's generic failure). Past it, the policy answers.
   * @default 50
   */
  settleGraceMs?: number
}

/**
 * Runs `work` with a signal that aborts on the deadline or the caller's signal, and returns promptly
 * after either even when the work ignores its signal. After an abort the result is always a failure:
 * the work's own `HarnessError` if it settles with one within the grace, else `TOOL_TIMEOUT` or
 * `TOOL_ABORTED`. The signal's `reason` is that policy error, so the work can tell the two apart.
 */
export async function runWithDeadline<T>(work: (signal: AbortSignal) => Promise<T>, options: DeadlineOptions): Promise<T> {
  const { timeoutMs, signal: callerSignal, label, settleGraceMs = 50 } = options
  const abortedError = (): CoreError => new CoreError('TOOL_ABORTED', `${label} was cancelled before it finished`)
  if (callerSignal?.aborted) throw abortedError()

  const controller = new AbortController()
  const onCallerAbort = (): void => controller.abort(abortedError())
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true })
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          controller.abort(new CoreError('TOOL_TIMEOUT', `${label} timed out after ${timeoutMs} ms; narrow the request and try again`))
        }, timeoutMs)

  const outcome = Promise.resolve()
    .then(() => work(controller.signal))
    .then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    )
  const aborted = new Promise<'aborted'>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true })
  })

  try {
    const first = await Promise.race([outcome, aborted])
    if (first !== 'aborted') {
      if (first.ok) return first.value
      throw first.error
    }
    const late = await Promise.race([outcome, delay(settleGraceMs)])
    if (late !== undefined && !late.ok && late.error instanceof HarnessError) throw late.error
    throw controller.signal.reason
  } finally {
    clearTimeout(timer)
    callerSignal?.removeEventListener('abort', onCallerAbort)
  }
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms))
}
