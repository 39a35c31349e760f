// `npm run soak [-- --minutes N] [--seed S]`: builds, then runs hostile glob, grep and read calls in process and as dsh processes.
// The in-process runner is imported after the build, since under tsx `@dsh/cli` resolves to the packages' dist/.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { processesMentioning } from '../test-support/processes.js'
import { randomCall, randomConfig, type SoakConfig } from './calls.js'
import { runCliCall } from './cli-process.js'
import { checkOutcome, type CallOutcome } from './invariants.js'
import { createRandom } from './random.js'
import { createTally, formatReport, recordCall } from './report.js'
import { diffSnapshots, snapshotTree, type TreeSnapshot } from './snapshot.js'
import { createHostileTree, removeHostileTree } from './tree.js'

const REPO_ROOT = path.resolve(import.meta.dirname, '..')
const DSH = path.join(REPO_ROOT, 'node_modules', '.bin', 'dsh')
const USAGE = 'usage: npm run soak [-- --minutes N] [--seed S]'
const IN_PROCESS_WORKERS = 4
const CLI_WORKERS = 2
const CLI_CONFIGS = 24
// Past a config's own bound (tool timeout plus kill grace): two shared cores, and for the CLI node's start-up.
const IN_PROCESS_SLACK_MS = 5000
const CLI_SLACK_MS = 15_000
// How long a leftover rg or shell may take to be reaped after its call returned.
const SETTLE_MS = 2000

function readArgs(): { minutes: number; seed: number } {
  let values: { minutes?: string; seed?: string }
  try {
    ;({ values } = parseArgs({ options: { minutes: { type: 'string' }, seed: { type: 'string' } }, strict: true, allowPositionals: false }))
  } catch (error) {
    return usageError((error as Error).message)
  }
  const minutes = Number(values.minutes ?? '1')
  if (!(minutes > 0) || !Number.isFinite(minutes)) return usageError(`--minutes must be a positive number, not ${values.minutes}`)
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed)
  if (!Number.isSafeInteger(seed) || seed < 0) return usageError(`--seed must be a non-negative integer, not ${values.seed}`)
  return { minutes, seed }
}

function usageError(message: string): never {
  process.stderr.write(`soak: ${message}\n${USAGE}\n`)
  process.exit(2)
}

/** `npm run build`, as the bench does: a stale dist/ would soak code that is not in src/. */
function ensureBuilt(): void {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' })
  if (build.status !== 0 || !existsSync(path.join(REPO_ROOT, 'packages', 'cli', 'dist', 'index.js'))) {
    process.stderr.write(
      `soak: \`npm run build\` failed (${build.error?.message ?? `status ${build.status}`}); fix the build and run it again.\n`,
    )
    process.exit(1)
  }
}

const { minutes, seed } = readArgs()
ensureBuilt()
const { loadSoakHarness, runInProcess } = await import('./in-process.js')
process.stdout.write(`soak: seed ${seed}, ${minutes} min, ${IN_PROCESS_WORKERS} in-process + ${CLI_WORKERS} CLI calls in flight\n`)

const tree = createHostileTree(seed)
// The searches' parent environment holds an outside-root secret too: /proc/self/environ must stay out of reach.
process.env.DSH_SOAK_SECRET = tree.outsideMarker
const tally = createTally()
let warnings = 0
let stopping = false
process.once('SIGINT', () => {
  stopping = true
  process.stdout.write('soak: stopping early; finishing the calls in flight\n')
})

try {
  // The tree and the outside dir its links lead to, links recorded as links.
  const snapshot = (): TreeSnapshot => snapshotTree(tree.base, [path.basename(tree.root), path.basename(tree.outsideDir)])
  const before = snapshot()
  const setupRandom = createRandom(seed)
  const cliConfigs = Array.from({ length: CLI_CONFIGS }, (_, i) => {
    // The first two are invalid on purpose: dsh must refuse them with exit 2.
    const config = randomConfig(setupRandom, { hostilePath: undefined, invalid: i < 2 })
    const file = path.join(tree.configDir, `config-${i}.json`)
    writeFileSync(file, JSON.stringify(config.plugins), { mode: 0o644 })
    return { config, file }
  })
  const deadline = Date.now() + minutes * 60_000
  const running = (): boolean => !stopping && Date.now() < deadline
  const record = (outcome: CallOutcome, peakRssKb?: number): void => recordCall(tally, outcome, checkOutcome(outcome, tree), peakRssKb)
  const hostilePath = `.:${process.env.PATH ?? '/usr/bin:/bin'}`
  const logger = { warn: () => void (warnings += 1), info: () => undefined }

  const inProcessWorker = async (index: number): Promise<void> => {
    const random = createRandom(seed + 1 + index * 7919)
    const fresh = async (): Promise<{ config: SoakConfig; harness: Awaited<ReturnType<typeof loadSoakHarness>> }> => {
      const config = randomConfig(random, { hostilePath: random.chance(0.3) ? hostilePath : undefined, invalid: false })
      return { config, harness: await loadSoakHarness(config, tree, logger) }
    }
    let current = await fresh()
    while (running()) {
      if (random.chance(0.1)) current = await fresh()
      const call = randomCall(random, tree, { user: 'root', inProcess: true, config: current.config })
      record(await runInProcess(current.harness, current.config, call, tree, IN_PROCESS_SLACK_MS))
    }
  }
  const cliWorker = async (index: number): Promise<void> => {
    const random = createRandom(seed + 101 + index * 7919)
    while (running()) {
      const { config, file } = random.pick(cliConfigs)
      // As the unprivileged user, who cannot write there: a workspace spill root must not change the tree.
      const spillDir = random.chance(0.25) ? random.pick(['.', '/'] as const) : undefined
      const user = spillDir !== undefined || random.chance(0.3) ? 'nobody' : 'root'
      const call = randomCall(random, tree, { user, inProcess: false, config, ...(spillDir === undefined ? {} : { spillDir }) })
      // "." and an empty entry both mean the cwd, the searched tree: its trap scripts must never run.
      const envPath = random.pick([process.env.PATH ?? '/usr/bin:/bin', hostilePath, `:${process.env.PATH ?? ''}`])
      const { outcome, peakRssKb } = await runCliCall(
        call,
        { dsh: DSH, tree, user, config, configFile: file, envPath, slackMs: CLI_SLACK_MS },
        random,
      )
      record(outcome, peakRssKb)
    }
  }
  // Settled, not all: a worker that fails must not remove the tree under the others still running.
  const workers = await Promise.allSettled([
    ...Array.from({ length: IN_PROCESS_WORKERS }, (_, i) => inProcessWorker(i)),
    ...Array.from({ length: CLI_WORKERS }, (_, i) => cliWorker(i)),
  ])
  const failed = workers.find((worker) => worker.status === 'rejected')
  if (failed !== undefined) throw failed.reason

  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const leaked = processesMentioning(tree.base).map((pid) => `pid ${pid}: ${commandLine(pid)}`)
  const changed = diffSnapshots(before, snapshot())
  if (warnings > 0) process.stdout.write(`harness warnings: ${warnings}\n`)
  process.stdout.write(formatReport(tally, { seed, minutes, soakPeakRssKb: process.resourceUsage().maxRSS, leaked, changed }))
  process.exitCode = leaked.length > 0 || changed.length > 0 || tally.violations.size > 0 ? 1 : 0
} finally {
  removeHostileTree(tree)
}
// A call the watchdog gave up on may still hold the event loop; the report is out, so end here.
process.exit()

function commandLine(pid: number): string {
  try {
    return JSON.stringify(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 300))
  } catch {
    return '(exited)'
  }
}
