import type { CaseResult } from './cases.js'
import { median, pairedDifference, pairedRatio } from './measure.js'
import type { TimeSplit } from './breakdown.js'

/** One target of the issue, checked against a measurement. */
export interface TargetCheck {
  target: string
  measured: number
  limit: number
  unit: string
}

const ms = (value: number): string => value.toFixed(1)

/**
 * A case as rows: each contender's median and min–max, and on each baseline row the median of the
 * paired ratios tool / baseline (for the CLI and MCP cases, the paired difference in ms, their targets' unit).
 */
export function formatCase(result: CaseResult): string {
  const [tool] = result.times
  const rows = result.times.map((times, i) => {
    const compare =
      i === 0
        ? ''
        : result.name.startsWith('cli') || result.name.startsWith('mcp')
          ? `+${ms(pairedDifference(tool!, times))} ms`
          : `${pairedRatio(tool!, times).toFixed(2)}x`
    const cells = [
      result.labels[i]!.padEnd(30),
      ms(median(times)).padStart(9),
      `${ms(Math.min(...times))}–${ms(Math.max(...times))}`.padStart(17),
      String(times.length).padStart(4),
      compare.padStart(11),
    ]
    return `    ${cells.join('  ')}`.trimEnd()
  })
  return [`  ${result.name} — ${result.detail}`, ...rows].join('\n')
}

/** The column heads that `formatCase` rows line up under. */
export const CASE_HEADER = `    ${['contender'.padEnd(30), 'median ms'.padStart(9), 'min–max ms'.padStart(17), 'runs'.padStart(4), 'tool vs it'.padStart(11)].join('  ')}`

/** Where each case's time goes, next to the baseline's median from the measured rounds. */
export function formatSplits(splits: readonly TimeSplit[]): string {
  const head = `    ${['case'.padEnd(16), 'tool ms'.padStart(9), 'bash.run ms'.padStart(12), 'tool-side ms'.padStart(13)].join('  ')}`
  const rows = splits.map(
    (s) =>
      `    ${[s.name.padEnd(16), ms(s.totalMs).padStart(9), ms(s.runMs).padStart(12), ms(s.totalMs - s.runMs).padStart(13)].join('  ')}`,
  )
  return [head, ...rows].join('\n')
}

/** Targets as pass/fail rows. */
export function formatTargets(checks: readonly TargetCheck[]): string {
  return checks
    .map(
      (c) =>
        `  ${c.measured <= c.limit ? 'pass' : 'FAIL'}  ${c.target.padEnd(52)} ${c.measured.toFixed(2).padStart(8)} ${c.unit} (≤ ${c.limit} ${c.unit})`,
    )
    .join('\n')
}

/** The paired ratio of the tool to the named baseline of a case. */
export function ratioOf(result: CaseResult, baseline: string): number {
  const index = result.labels.indexOf(baseline)
  if (index < 1) throw new Error(`${result.name} has no baseline ${baseline}`)
  return pairedRatio(result.times[0]!, result.times[index]!)
}
