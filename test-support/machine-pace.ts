// How slow the machine runs at the start of a test run, measured once (vitest.config.ts), so time
// budgets scale with the machine instead of assuming a quiet one: a suite run beside a build, another
// suite or two busy loops gets budgets as much longer as its processes start slower.
import { spawnSync } from 'node:child_process'

/**
 * What starting `node -e 0` takes on a quiet 2-core machine (CI's size), in ms: its CPU time there
 * (~50 ms, `/usr/bin/time`), which is its wall time when nothing else runs. The budgets tests state
 * are what that machine needs, with room to spare.
 */
export const QUIET_NODE_START_MS = 50

/**
 * The largest slowdown budgets scale by. A test bounds a duration below what the failure it catches
 * would take (a 5 s sleep a tool ignores, a 60 s upstream start); ten times its quiet bound stays below
 * that, more might not, and the test could no longer fail.
 */
export const MAX_SLOWDOWN = 10

/** The environment variable that carries a run's slowdown to vitest's later evaluations of its config, or pins it. */
export const SLOWDOWN_ENV = 'DSH_TEST_SLOWDOWN'

/** How many starts a measurement times; their median resists one start delayed by a passing burst. */
export const PACE_SAMPLES = 7

/**
 * How many times slower than the reference this machine starts a process right now: the median of
 * `PACE_SAMPLES` timed `node -e 0` starts over `QUIET_NODE_START_MS`, never below 1 (a faster machine
 * keeps the stated budgets) nor above `MAX_SLOWDOWN`. A process start is what most of the suite waits
 * on: rg, bash, dsh, MCP servers.
 */
export function measureSlowdown(): number {
  const times = Array.from({ length: PACE_SAMPLES }, timeNodeStart).sort((a, b) => a - b)
  return Math.min(MAX_SLOWDOWN, Math.max(1, times[Math.floor(PACE_SAMPLES / 2)]! / QUIET_NODE_START_MS))
}

function timeNodeStart(): number {
  const started = performance.now()
  spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' })
  return performance.now() - started
}

/** A budget stated for the quiet reference machine, scaled to a machine `slowdown` times slower. */
export function scaleBudgetMs(quietMs: number, slowdown: number): number {
  return Math.ceil(quietMs * slowdown)
}
