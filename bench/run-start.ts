// `npm run bench:start [-- --rounds N]`: only the bench's start cases (bench/start.ts), for work on what a
// `dsh` call costs before and after its search: the warm server, the first call, a served call taken apart.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ensureBuilt } from './build.js'
import { roundsArgument } from './measure.js'

const measured = roundsArgument('bench:start', 15)
// As in the full bench: every dsh process runs in process unless its case says otherwise.
process.env.DSH_NO_DAEMON = '1'
ensureBuilt()
const { benchCacheDir } = await import('./cache-dir.js')
const { ensureGeneratedTree, GENERATED_PATTERNS, TINY_TREE } = await import('./corpus-generated.js')
const { startCases } = await import('./start.js')
const { CASE_HEADER, formatCase } = await import('./report.js')
const { pairedDifference } = await import('./measure.js')
const rg = (await import('@vscode/ripgrep')).rgPath
const tiny = { name: 'generated-tiny', root: ensureGeneratedTree(benchCacheDir(), TINY_TREE), patterns: GENERATED_PATTERNS }
const print = (line: string) => process.stdout.write(`${line}\n`)
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
print(`load average at the start: ${load()}`)
const spillRoot = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-spill-'))
try {
  // startCases reads only the rg path of the bench's context.
  const start = await startCases({ rg } as Parameters<typeof startCases>[0], tiny, spillRoot, { warmup: 2, measured })
  print(CASE_HEADER)
  for (const result of [start.warm, start.first, start.parts]) print(formatCase(result))
  const [served, rgTimes, cold, node, uncached] = start.warm.times as [number[], number[], number[], number[], number[]]
  const [grep, partsNode, client, instant, read] = start.parts.times as [number[], number[], number[], number[], number[]]
  const row = (what: string, value: number) => print(`    ${what.padEnd(58)} ${value.toFixed(1).padStart(7)} ms`)
  print('\n  paired medians')
  row('warm served grep - rg (target <= 100)', pairedDifference(served, rgTimes))
  row('node -e 0 - rg (the floor under any Node dsh)', pairedDifference(node, rgTimes))
  row('warm served grep - node -e 0 (what is not Node starting)', pairedDifference(served, node))
  row('client loaded - node -e 0', pairedDifference(client, partsNode))
  row('instant server - node -e 0 (client, connect, one round trip)', pairedDifference(instant, partsNode))
  row("warm served grep - instant server (the server's work)", pairedDifference(grep, instant))
  row('warm served grep - warm served read (the search)', pairedDifference(grep, read))
  row('--no-daemon - rg (cold)', pairedDifference(cold, rgTimes))
  row('--no-daemon without - with the probe cache file', pairedDifference(uncached, cold))
} finally {
  rmSync(spillRoot, { recursive: true, force: true })
}
print(`load average at the end: ${load()}`)
