import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { REPO_ROOT } from './build.js'

/**
 * The pinned tree's manifest and lock, kept in the clone: 655 real packages nobody on this project
 * wrote (117,939 files, 34 links in `node_modules/.bin`), installed outside the repo.
 */
const PINNED_DIR = path.join(REPO_ROOT, 'bench', 'corpus', 'npm-tree')
const MANIFESTS = ['package.json', 'package-lock.json'] as const

/**
 * Builds the real npm tree once (`npm ci --ignore-scripts`, about a minute) and reuses it while its
 * lock file matches the pinned one. npm writes `node_modules/.package-lock.json` last, so its presence
 * means a finished install. Returns the search root.
 */
export function ensureNpmTree(cacheDir: string): string {
  const root = path.join(cacheDir, 'npm-tree')
  const pinnedLock = readFileSync(path.join(PINNED_DIR, 'package-lock.json'), 'utf8')
  const lockPath = path.join(root, 'package-lock.json')
  const installed = existsSync(path.join(root, 'node_modules', '.package-lock.json'))
  if (installed && existsSync(lockPath) && readFileSync(lockPath, 'utf8') === pinnedLock) return root

  process.stdout.write(`bench: installing the pinned npm tree into ${root} (once, about a minute)\n`)
  mkdirSync(root, { recursive: true })
  for (const file of MANIFESTS) copyFileSync(path.join(PINNED_DIR, file), path.join(root, file))
  // --ignore-scripts: the tree is data to search, nothing in it should run.
  const install = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' })
  if (install.status !== 0) throw new Error(`npm ci in ${root} failed (status ${install.status}); see its output above`)
  return root
}
