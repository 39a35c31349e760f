import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { REPO_ROOT } from './build.js'
import type { Corpus, GrepSearch } from './cases.js'

const MARKER = 'DSH_BENCH_MAX_RSS_KB='

// Preloaded into the dsh process: at exit it prints its peak RSS, VmHWM in KiB. Not getrusage's
// ru_maxrss (process.resourceUsage().maxRSS): Linux carries that across exec, so a child forked from
// the bench's large process reports the bench's RSS (measured: 297 MB from a 300 MB parent, VmHWM 42).
// A data: URL keeps tsx and the bench out of the measured process: this is the shipped CLI on plain node.
const REPORT_MAX_RSS = `import { readFileSync, writeSync } from 'node:fs'
process.on('exit', () => writeSync(2, '\\n${MARKER}' + /VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1] + '\\n'))`

const DSH_PROGRAM = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'dsh.js')

/**
 * Peak RSS in MB (10^6 bytes) of one `dsh` process running one command: a fresh process per case, so
 * one case's heap cannot raise another's peak. rg runs in its own process and is not counted.
 */
export async function dshPeakRssMb(dshArgs: readonly string[]): Promise<number> {
  const preload = `data:text/javascript,${encodeURIComponent(REPORT_MAX_RSS)}`
  // Run through the bin's own shebang, as a user does, so its node flags apply; the preload rides in NODE_OPTIONS.
  const env = { ...process.env, NODE_OPTIONS: `--import ${preload}` }
  const child = spawn(DSH_PROGRAM, [...dshArgs], { stdio: ['ignore', 'ignore', 'pipe'], env })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [exitCode] = (await once(child, 'close')) as [number | null]
  const reported = new RegExp(`${MARKER}(\\d+)`).exec(stderr)
  // dsh exits as rg does: 0 found, 1 nothing, 2 an error answer (an overflow), which still has a peak.
  if (reported === null || (exitCode !== 0 && exitCode !== 1 && exitCode !== 2)) {
    throw new Error(`dsh ${dshArgs.join(' ')} exited ${exitCode} without reporting its RSS: ${stderr.slice(-500)}`)
  }
  return (Number(reported[1]) * 1024) / 1e6
}

/**
 * Peak RSS of `dsh` for each main case (grep narrow to overflow, each glob, the `more` searches: the
 * many-match cases) and, for reference, a narrow grep on the tiny tree: what Node and the loaded
 * harness cost before any result.
 */
export async function measurePeakRss(
  main: Corpus,
  tiny: Corpus,
  globPatterns: readonly string[],
  more: readonly GrepSearch[],
  spillRoot: string,
  onResult: (name: string, mb: number) => void,
): Promise<Map<string, number>> {
  const runs: [string, string[]][] = [
    [`grep narrow on ${tiny.name}`, ['grep', tiny.patterns.narrow, '--cwd', tiny.root]],
    ...(['narrow', 'medium', 'broad', 'overflow'] as const).map((size): [string, string[]] => [
      `grep ${size}`,
      ['grep', main.patterns[size], '--cwd', main.root],
    ]),
    ...globPatterns.map((pattern): [string, string[]] => [`glob ${pattern}`, ['glob', pattern, '--cwd', main.root]]),
    ...more.map((search): [string, string[]] => [search.name, ['grep', search.pattern, '--cwd', search.root]]),
  ]
  const peaks = new Map<string, number>()
  for (const [name, args] of runs) {
    const mb = await dshPeakRssMb([...args, '--spill-dir', spillRoot])
    peaks.set(name, mb)
    onResult(name, mb)
  }
  return peaks
}
