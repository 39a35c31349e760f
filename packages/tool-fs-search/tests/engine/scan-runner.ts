// A fake link scan for the remembered scan's unit tests: answers given in turn, each call recorded.
import type { RunScan, Scan } from '../../src/engine/link-scan-memory.js'

/** A scan runner answering each call from `answers` in turn, recording its starts and depth. */
export function runner(answers: Array<Scan | string>): RunScan & { calls: Array<[readonly string[], string]> } {
  const calls: Array<[readonly string[], string]> = []
  const run = async (starts: readonly string[], depth: 'all' | 'one') => {
    calls.push([starts, depth])
    const answer = answers.shift()
    if (answer === undefined) throw new Error(`unexpected scan of ${starts.join(' ')}`)
    return answer
  }
  return Object.assign(run, { calls })
}

/** The signal of a call nobody stops: what a scan gets unless a test stops it. */
export const UNSTOPPED = new AbortController().signal
