// A real executor whose time limit runs out at a chosen point of a search's output, not at a time.
import type { BashExecutor, BashRunResult, BashSpec } from '@dsh/core'

/**
 * Wraps a real executor so that a search through `rg` ends as if its time limit had just run out once
 * `ready` holds for the stdout streamed so far: the run is stopped (its process group killed, as for
 * any stop) and reported `stop: 'timeout'`. With a blocking rg (test-support/blocking-rg.ts) the
 * search never finishes on its own, so the point is fixed by the output, whatever the machine's load.
 * Runs of anything else (the probes, a window fetch) and a caller's cancellation pass through as they are.
 */
export function stopWhenStreamed(inner: BashExecutor, rg: string, ready: (streamed: Buffer) => boolean): BashExecutor {
  return {
    resolve: (request) => inner.resolve(request),
    async run(spec: BashSpec): Promise<BashRunResult> {
      const sink = spec.stdoutSink
      if (sink === undefined || !spec.command.includes(rg) || !spec.command.includes('--null')) return inner.run(spec)
      const stop = new AbortController()
      const cancel = (): void => stop.abort()
      spec.signal?.addEventListener('abort', cancel, { once: true })
      if (spec.signal?.aborted === true) stop.abort()
      let streamed = Buffer.alloc(0)
      let fired = false
      const watched = (chunk: Uint8Array): void => {
        sink(chunk)
        streamed = Buffer.concat([streamed, chunk])
        if (!fired && ready(streamed)) {
          fired = true
          stop.abort()
        }
      }
      try {
        const run = await inner.run({ ...spec, signal: stop.signal, stdoutSink: watched })
        // Only a run this stop ended is a timeout: one that exited first (an rg that did not block) is not.
        return fired && run.stop === 'abort' && spec.signal?.aborted !== true ? { ...run, stop: 'timeout' } : run
      } finally {
        spec.signal?.removeEventListener('abort', cancel)
      }
    },
  }
}

/** How many times `byte` occurs in `bytes`: records streamed so far, by their terminator. */
export function countByte(bytes: Buffer, byte: number): number {
  let count = 0
  for (const value of bytes) if (value === byte) count += 1
  return count
}
