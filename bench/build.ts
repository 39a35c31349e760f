import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

/** The repository root: the bench lives in `<root>/bench`. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..')

const PACKAGES = ['core', 'bash-local', 'spill-local', 'fs-local', 'tool-fs', 'tool-fs-search', 'mcp', 'cli'] as const

/**
 * Runs the build (`tsc -b`, then the dsh bundle) and checks every package's dist/. Under tsx the
 * `@dsh/*` imports resolve through each package's `exports` to dist/, and the CLI cases run the
 * bundle, so a stale or missing build would benchmark code that is not in src/. Exits the process
 * with a clear message rather than measure the wrong thing.
 */
export function ensureBuilt(): void {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' })
  const missing = PACKAGES.filter((name) => !existsSync(path.join(REPO_ROOT, 'packages', name, 'dist', 'index.js')))
  if (build.status !== 0 || missing.length > 0) {
    const why =
      build.status !== 0
        ? `\`npm run build\` failed (${build.error?.message ?? `status ${build.status}`})`
        : `no dist/ for ${missing.join(', ')}`
    process.stderr.write(`bench: ${why}; the bench measures the built packages, so fix the build and run it again.\n`)
    process.exit(1)
  }
}
