/** One side of a comparison: a label and one timed run, in milliseconds. */
export interface Contender {
  label: string
  run: () => Promise<number>
}

/** How many rounds: warmups are run and dropped. */
export interface Rounds {
  warmup: number
  measured: number
}

/**
 * Runs every contender once per round, round after round, so drift in machine load (other jobs, the
 * page cache, CPU clocks) hits all of them alike. The starting contender rotates each round, so none
 * always runs first after the idle gap or always follows the tool's garbage. Returns ms per contender
 * per measured round.
 */
export async function runInterleaved(contenders: readonly Contender[], rounds: Rounds): Promise<number[][]> {
  const times = contenders.map(() => [] as number[])
  for (let round = 0; round < rounds.warmup + rounds.measured; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (round + k) % contenders.length
      const ms = await contenders[index]!.run()
      if (round >= rounds.warmup) times[index]!.push(ms)
    }
  }
  return times
}

/** The median (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * The median of per-round ratios `a[i] / b[i]`. Pairing cancels load that hits one round (both sides
 * ran within a second of each other), which a ratio of medians would not.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value / b[i]!))
}

/** The median of per-round differences `a[i] - b[i]`. */
export function pairedDifference(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value - b[i]!))
}

/**
 * The measured rounds a one-section bench script was asked for: its only argument is `--rounds N`
 * (N a positive integer), `fallback` without it; anything else prints the usage and exits 2.
 */
export function roundsArgument(script: string, fallback: number): number {
  const args = process.argv.slice(2)
  const at = args.indexOf('--rounds')
  const rounds = at === -1 ? fallback : Number(args[at + 1])
  if (!Number.isInteger(rounds) || rounds < 1 || args.length !== (at === -1 ? 0 : 2)) {
    process.stderr.write(`${script}: usage: npm run ${script} [-- --rounds N]\n`)
    process.exit(2)
  }
  return rounds
}
