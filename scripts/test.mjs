// `npm test`: build, type check, lint, format check, then vitest with per-file 100% coverage.
// Ends with one plain line `N passed, N failed`, the line CI reads.
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'

const results = '.vitest-results.json'
const run = (command, args) => spawnSync(command, args, { stdio: 'inherit' }).status ?? 1

let failedSteps = 0
for (const [label, command, args] of [
  ['build', 'npm', ['run', '--silent', 'build']],
  ['type check (tests)', 'npx', ['tsc', '-p', 'tsconfig.test.json']],
  ['lint', 'npx', ['eslint', '.']],
  ['format check', 'npm', ['run', '--silent', 'format:check']],
]) {
  process.stdout.write(`\n== ${label}\n`)
  if (run(command, args) !== 0) {
    process.stdout.write(`${label} failed\n`)
    failedSteps += 1
  }
}

process.stdout.write('\n== tests\n')
rmSync(results, { force: true })
const vitest = run('npx', [
  'vitest',
  'run',
  '--coverage',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${results}`,
  ...process.argv.slice(2),
])
let passed = 0
let failed = 0
try {
  const report = JSON.parse(readFileSync(results, 'utf8'))
  passed = report.numPassedTests
  failed = report.numFailedTests
} catch {
  failed += 1
}
// A failed type check, lint or coverage threshold counts as a failure even when every test passed.
const stepFailures = failedSteps + (vitest !== 0 && failed === 0 ? 1 : 0)
process.stdout.write(`\n${passed} passed, ${failed + stepFailures} failed\n`)
process.exit(vitest !== 0 || failedSteps > 0 ? 1 : 0)
