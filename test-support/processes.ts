// Process-table helpers shared by the suites that check no search process outlives its call.
import { readdirSync, readFileSync } from 'node:fs'

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

/** Polls until `check` returns true or `withinMs` passes; returns the last answer. */
export async function waitUntil(check: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  return check()
}

/** Polls until no live process mentions `needle` or `withinMs` passes; returns those left. */
export async function waitForNoProcess(needle: string, withinMs: number): Promise<number[]> {
  await waitUntil(() => processesMentioning(needle).length === 0, withinMs)
  return processesMentioning(needle)
}
