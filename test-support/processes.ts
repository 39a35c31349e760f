// Process-table helpers shared by the suites that check no search process outlives its call.
import { readdirSync, readFileSync } from 'node:fs'
import { budgetMs } from './budget.js'

/**
 * Live processes whose command line mentions `needle`, from /proc. A zombie has no command line, so
 * it never counts: it has exited and only waits to be reaped.
 */
export function processesMentioning(needle: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    let cmdline: string
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
    } catch {
      continue // exited while we scanned
    }
    if (cmdline.includes(needle)) found.push(Number(entry))
  }
  return found
}

/**
 * Polls until `check` returns true (then true, without asking again: what it saw may be gone by the
 * next look) or `withinMs` passes (then false). `withinMs` is what the quiet reference machine needs;
 * it is scaled by this run's slowdown (test-support/budget.ts), so a busy machine waits longer instead
 * of failing. Only a failure pays for the wait.
 */
export async function waitUntil(check: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + budgetMs(withinMs)
  for (;;) {
    if (check()) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Polls until no live process mentions `needle` or `withinMs` (scaled, as `waitUntil`'s) passes; returns those left. */
export async function waitForNoProcess(needle: string, withinMs: number): Promise<number[]> {
  await waitUntil(() => processesMentioning(needle).length === 0, withinMs)
  return processesMentioning(needle)
}
