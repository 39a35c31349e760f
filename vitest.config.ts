import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { measureSlowdown, scaleBudgetMs, SLOWDOWN_ENV } from './test-support/machine-pace.js'

const packages = fileURLToPath(new URL('./packages/', import.meta.url))

// Measured once per run, before any worker starts: every budget below and every budgetMs() in a test
// scales by it, so a loaded machine gets longer timeouts instead of failures (test-support/machine-pace.ts).
// Vitest evaluates this file again for each project; the environment carries the first measurement to
// them, so every project scales by the same number. Set DSH_TEST_SLOWDOWN to pin it.
const pinned = process.env[SLOWDOWN_ENV]
const machineSlowdown = pinned === undefined ? firstMeasurement() : Number(pinned)

// Projects by file name, so a spec keeps its project wherever it moves. A spec that opts into none is
// integration: it may touch real files, bash or rg, and only a spec named as pure runs without them.
const specs = 'packages/*/tests/**/'
const PROJECTS = {
  /** Pure logic and fakes: no process, no file outside the source tree. */
  unit: `${specs}*.unit.spec.ts`,
  /** The built `dsh` as a user or an MCP host runs it: spawned binaries, MCP processes, a browser. */
  e2e: `${specs}*.e2e.spec.ts`,
  /** npm pack and install into a fresh project, as a consumer gets the packages. */
  packaging: `${specs}*.pack.spec.ts`,
} as const

/** Measures the slowdown, leaves it in the environment for the later evaluations, and says it. */
function firstMeasurement(): number {
  const slowdown = measureSlowdown()
  process.env[SLOWDOWN_ENV] = String(slowdown)
  process.stderr.write(`machine slowdown ${slowdown.toFixed(2)}x: test time budgets scale by it\n`)
  return slowdown
}

/** A project that runs the specs `include` matches but `exclude` does not, under the options below. */
function project(name: string, include: string[], exclude: string[] = []) {
  return { extends: true as const, test: { name, include, exclude: [...configDefaults.exclude, ...exclude] } }
}

export default defineConfig({
  resolve: {
    // Tests run against each package's TypeScript source, so coverage is measured on src/ and no build is needed.
    // A subpath export (`@dsh/mcp/plugin`) is the source file of the same name.
    alias: [
      { find: /^@dsh\/([a-z-]+)$/, replacement: `${packages}$1/src/index.ts` },
      { find: /^@dsh\/([a-z-]+)\/([a-z-]+)$/, replacement: `${packages}$1/src/$2.ts` },
    ],
  },
  test: {
    // Stated for the quiet 2-core reference machine; a slower or busier one scales them.
    testTimeout: scaleBudgetMs(20_000, machineSlowdown),
    hookTimeout: scaleBudgetMs(60_000, machineSlowdown),
    provide: { machineSlowdown },
    // The built dsh hands its calls to a warm server by default; a test that spawns it gets none unless
    // it asks (daemon.e2e.spec.ts), so no server outlives the run or serves another test's call.
    env: { DSH_NO_DAEMON: '1' },
    projects: [
      ...Object.entries(PROJECTS).map(([name, include]) => project(name, [include])),
      project('integration', [`${specs}*.spec.ts`], Object.values(PROJECTS)),
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      // The entries run only as the built command's processes, which e2e specs spawn. The index build's
      // worker entry and its TypeScript bootstrap run only in worker threads, whose isolates v8 coverage
      // does not collect: the logic they run is key-files.ts, which a build with one worker runs here.
      exclude: [
        'packages/*/src/bin.ts',
        'packages/cli/src/daemon/entry.ts',
        'packages/index-local/src/key-worker.ts',
        'packages/index-local/src/key-worker-source.mjs',
      ],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { perFile: true, lines: 100, branches: 100, functions: 100, statements: 100 },
    },
  },
})
