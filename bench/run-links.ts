// `npm run bench:links [-- --rounds N]`: only the bench's links section (bench/links.ts), for work on what following links costs.
import os from 'node:os'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { ensureBuilt } from './build.js'
import { roundsArgument } from './measure.js'

const measured = roundsArgument('bench:links', 5)
ensureBuilt()
const { benchCacheDir } = await import('./cache-dir.js')
const { ensureLinkedTree, LINK_NEEDLE, linksCase, linksSearches, loadLinksContext } = await import('./links.js')
const { warmPageCache } = await import('./warm.js')
const { CASE_HEADER, formatCase } = await import('./report.js')
const rg = (await import('@vscode/ripgrep')).rgPath
const cacheDir = benchCacheDir()
// The npm tree as the full bench installed it (ensureNpmTree finds its pinned lock beside the main checkout only).
const npm = path.join(cacheDir, 'npm-tree')
if (!existsSync(path.join(npm, 'node_modules'))) throw new Error(`no npm tree at ${npm}: run \`npm run bench\` once`)
const linked = ensureLinkedTree(cacheDir)
for (const root of [npm, linked]) await warmPageCache(rg, root)
const print = (line: string) => process.stdout.write(`${line}\n`)
print(
  `load average at the start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
const spillRoot = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-spill-'))
try {
  const ctx = await loadLinksContext(rg, spillRoot)
  print(CASE_HEADER)
  // The npm tree's grep patterns of the full bench (bench.ts NPM_PATTERNS): narrow, medium, broad.
  const greps = ['SvgIconTypeMap', 'export declare'].map((pattern) => linksSearches(rg, 'npm-tree', npm, pattern, '**/*.ts', false)[0]!)
  for (const search of [
    ...linksSearches(rg, 'npm-tree', npm, 'Paginator', '**/*.ts', false),
    ...greps,
    ...linksSearches(rg, 'generated-links', linked, LINK_NEEDLE, '**/*.js', true),
  ])
    print(formatCase(await linksCase(ctx, search, { warmup: 1, measured })))
} finally {
  rmSync(spillRoot, { recursive: true, force: true })
}
print(
  `load average at the end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
