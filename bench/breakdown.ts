import { callTool } from './harness.js'
import type { BenchContext, Corpus, GrepSearch } from './cases.js'
import { elapsedMs } from './processes.js'
import { median } from './measure.js'

/** Where one call's time goes: inside `bash.run` (bash, rg, the pipe) and in the tool around it. */
export interface TimeSplit {
  name: string
  totalMs: number
  runMs: number
}

/**
 * Splits each main case's time, and each of the `more` searches', through the recording harness
 * (medians of `calls` calls). `runMs` is
 * every `bash.run` of the call from spawn to close; the rest is the tool: resolve, parsing, sorting, retention,
 * formatting and the spill write.
 */
export async function splitToolTime(
  ctx: BenchContext,
  corpus: Corpus,
  globPatterns: readonly string[],
  more: readonly GrepSearch[],
  calls: number,
): Promise<TimeSplit[]> {
  const plans: { name: string; call: () => Promise<unknown> }[] = [
    ...(['narrow', 'medium', 'broad'] as const).map((size) => ({
      name: `grep ${size}`,
      call: () => callTool(ctx.recording.harness, 'grep', { pattern: corpus.patterns[size] }, corpus.root),
    })),
    {
      name: 'grep overflow',
      call: () => callTool(ctx.recording.harness, 'grep', { pattern: corpus.patterns.overflow }, corpus.root),
    },
    ...globPatterns.map((pattern) => ({
      name: `glob ${pattern}`,
      call: () => callTool(ctx.recording.harness, 'glob', { pattern }, corpus.root),
    })),
    ...more.map((search) => ({
      name: search.name,
      call: () => callTool(ctx.recording.harness, 'grep', { pattern: search.pattern }, search.root),
    })),
  ]
  const splits: TimeSplit[] = []
  for (const plan of plans) {
    const totals: number[] = []
    const runs: number[] = []
    for (let i = 0; i < calls; i++) {
      const before = ctx.recording.totalRunMs()
      const started = process.hrtime.bigint()
      await plan.call()
      totals.push(elapsedMs(started))
      runs.push(ctx.recording.totalRunMs() - before)
    }
    splits.push({ name: plan.name, totalMs: median(totals), runMs: median(runs) })
  }
  return splits
}
