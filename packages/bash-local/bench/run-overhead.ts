// What the bash seam costs per call: `resolve` + `run('true')` through the local executor against a
// bare `spawn('bash', ['-c', 'true'])` that waits for `close`. Rounds interleave the two (alternating
// which goes first) so drift in machine load hits both alike. Run: npx tsx packages/bash-local/bench/run-overhead.ts
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createLocalBash } from '../src/index.js'

const WARMUP = 20
const ROUNDS = 200
const bash = createLocalBash()

async function viaExecutor(): Promise<number> {
  const start = performance.now()
  const result = await bash.run(await bash.resolve({ command: 'true' }))
  if (result.exitCode !== 0) throw new Error(`executor run failed: ${JSON.stringify(result)}`)
  return performance.now() - start
}

async function bareSpawn(): Promise<number> {
  const start = performance.now()
  const child = spawn('bash', ['-c', 'true'])
  const [code] = (await once(child, 'close')) as [number | null]
  if (code !== 0) throw new Error(`bare spawn exited ${code}`)
  return performance.now() - start
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

for (let i = 0; i < WARMUP; i += 1) await Promise.all([viaExecutor(), bareSpawn()])
const executor: number[] = []
const bare: number[] = []
for (let i = 0; i < ROUNDS; i += 1) {
  if (i % 2 === 0) {
    executor.push(await viaExecutor())
    bare.push(await bareSpawn())
  } else {
    bare.push(await bareSpawn())
    executor.push(await viaExecutor())
  }
}

const row = (label: string, samples: number[]): string =>
  `${label.padEnd(28)} median ${quantile(samples, 0.5).toFixed(2)} ms   p90 ${quantile(samples, 0.9).toFixed(2)} ms`
console.log(`${ROUNDS} interleaved rounds after ${WARMUP} warmup, node ${process.version}`)
console.log(row('resolve + run (bash-local)', executor))
console.log(row("bare spawn('bash', '-c')", bare))
console.log(
  `ratio of medians ${(quantile(executor, 0.5) / quantile(bare, 0.5)).toFixed(2)}x, overhead ${(quantile(executor, 0.5) - quantile(bare, 0.5)).toFixed(2)} ms`,
)
