import type { CaseResult } from './cases.js'
import type { StartCases } from './start.js'
import { pairedDifference } from './measure.js'
import { ratioOf, type TargetCheck } from './report.js'

/**
 * The targets (medians of paired ratios, 2 cores, warm cache), checked on the main corpus and,
 * in a full run (`many`), on the many-match cases. `find` looks a case up by corpus (the main one when
 * omitted) and name; `rss` holds peak RSS in MB by case; `start` the start cases (processes), `mcp` the stdio
 * server case; `links` the links cases, whose tree without links (the main corpus) bounds what the scan
 * may add to a call.
 */
export function checkTargets(
  find: (corpus: string | undefined, name: string) => CaseResult,
  rss: ReadonlyMap<string, number>,
  start: StartCases,
  mcp: CaseResult,
  many: boolean,
  links: readonly CaseResult[],
): TargetCheck[] {
  const main = (name: string): CaseResult => find(undefined, name)
  const overflow = main('grep overflow')
  const manyMatch = (name: string, limit: number): TargetCheck => ({
    target: `${name}: tool / rg`,
    measured: ratioOf(find('many-match', name), 'rg'),
    limit,
    unit: 'x',
  })
  return [
    { target: 'grep narrow: tool / rg', measured: ratioOf(main('grep narrow'), 'rg'), limit: 1.05, unit: 'x' },
    { target: 'grep medium: tool / rg', measured: ratioOf(main('grep medium'), 'rg'), limit: 1.05, unit: 'x' },
    { target: 'grep broad: tool / rg', measured: ratioOf(main('grep broad'), 'rg'), limit: 1.1, unit: 'x' },
    { target: 'Grep files_with_matches: tool / rg -l', measured: ratioOf(main('Grep files_with_matches'), 'rg'), limit: 1.1, unit: 'x' },
    { target: 'Grep content -C 3: tool / rg -C 3', measured: ratioOf(main('Grep content -C 3'), 'rg'), limit: 1.1, unit: 'x' },
    { target: 'glob **/*.ts: tool / rg --files', measured: ratioOf(main('glob **/*.ts'), 'rg --files'), limit: 2, unit: 'x' },
    {
      target: 'glob **/*.ts: tool / rg --files --sortr=modified',
      measured: ratioOf(main('glob **/*.ts'), 'rg --files --sortr=modified'),
      limit: 0.25,
      unit: 'x',
    },
    { target: 'glob **/*: tool / rg --files', measured: ratioOf(main('glob **/*'), 'rg --files'), limit: 2.2, unit: 'x' },
    { target: 'grep past the cap: tool / its script drained', measured: ratioOf(overflow, overflow.labels[1]!), limit: 1.3, unit: 'x' },
    { target: 'peak RSS, dsh grep broad', measured: rss.get('grep broad')!, limit: 110, unit: 'MB' },
    ...(many
      ? [
          manyMatch('grep 115k', 1.2),
          manyMatch('grep 420k', 1.7),
          manyMatch('grep 1.4M short', 1.7),
          {
            target: 'dsh grep 115k (process): dsh / rg',
            measured: ratioOf(find('many-match', 'dsh grep 115k (process)'), 'rg'),
            limit: 2.8,
            unit: 'x',
          },
          { target: 'peak RSS, dsh grep 115k', measured: rss.get('grep 115k')!, limit: 90, unit: 'MB' },
          { target: 'peak RSS, dsh grep 1.4M short', measured: rss.get('grep 1.4M short')!, limit: 130, unit: 'MB' },
        ]
      : []),
    ...links
      .filter((result) => !result.labels.some((label) => label.includes('--follow')))
      .map((result) => ({
        target: `${result.name}: tool / tool without the scan`,
        measured: ratioOf(result, 'tool, scan finds no link'),
        limit: 1.1,
        unit: 'x',
      })),
    {
      target: 'dsh grep process, warm server - rg process (tiny tree)',
      measured: pairedDifference(start.warm.times[0]!, start.warm.times[1]!),
      limit: 100,
      unit: 'ms',
    },
    {
      // Cold: the limit the in-process start had before the server (bench/targets.ts history).
      target: 'dsh grep process, --no-daemon - rg process (tiny tree)',
      measured: pairedDifference(start.warm.times[2]!, start.warm.times[1]!),
      limit: 160,
      unit: 'ms',
    },
    {
      // The first call with the server on: in process, and starting the server only as it exits.
      target: 'dsh grep first call, server on - --no-daemon (tiny tree)',
      measured: pairedDifference(start.first.times[0]!, start.first.times[1]!),
      limit: 15,
      unit: 'ms',
    },
    {
      target: 'grep via dsh mcp - grep in process (tiny tree)',
      measured: pairedDifference(mcp.times[0]!, mcp.times[1]!),
      limit: 5,
      unit: 'ms',
    },
  ]
}
