// Time budgets inside tests, scaled by the slowdown vitest.config.ts measured once for the whole run.
import { inject } from 'vitest'
import { scaleBudgetMs } from './machine-pace.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** How many times slower than the quiet reference machine this run's machine is (test-support/machine-pace.ts). */
    machineSlowdown: number
  }
}

/**
 * `quietMs` (what the quiet 2-core reference machine needs, with room to spare) scaled to this run's
 * machine. For waits and deadlines that only bound how long a failure takes to show. A bound a test
 * asserts a duration under must stay below what the failure it catches would take: scale both.
 */
export function budgetMs(quietMs: number): number {
  return scaleBudgetMs(quietMs, inject('machineSlowdown'))
}

/** This run's slowdown, for a test that scales something other than a budget (a sleep it outlasts). */
export function machineSlowdown(): number {
  return inject('machineSlowdown')
}
