// Runs only the bench's results-of-any-size section (the full `npm run bench` runs it too): for a
// quick look at those cases without the rest of the bench. `tsx bench/any-size-only.ts [name...]`.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { anySizeCase, anySizeSearches, anySizeTargets, ensureFileTree, ensureHugeMatchTree } from './any-size.js'
import { benchCacheDir } from './cache-dir.js'
import { loadCliHarness } from './harness.js'
import { CASE_HEADER, formatCase, formatTargets } from './report.js'
import { warmPageCache } from './warm.js'

// Each dsh process measured for its peak RSS runs the search itself, as in `npm run bench`: a warm
// server would answer for it, and the process measured would be only the client.
process.env.DSH_NO_DAEMON = '1'
const only = process.argv.slice(2)
const cacheDir = benchCacheDir()
const rg = (await import('@vscode/ripgrep')).rgPath
const spillRoot = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-spill-'))
try {
  const harness = await loadCliHarness(spillRoot)
  const roots = {
    hugeMatch: ensureHugeMatchTree(cacheDir),
    files100k: ensureFileTree(cacheDir, 100_000),
    files1m: ensureFileTree(cacheDir, 1_000_000),
    // The npm tree `npm run bench` installed (bench/corpus-npm.ts); this script does not install it.
    npmTree: path.join(cacheDir, 'npm-tree'),
  }
  const searches = anySizeSearches(rg, roots).filter((search) => only.length === 0 || only.includes(search.name))
  // Only the trees of the cases asked for: the npm tree may not be installed.
  for (const root of new Set(searches.map((search) => search.root))) await warmPageCache(rg, root)
  console.log(`== results of any size (in process, interleaved; tool vs it = median of per-round tool/baseline)\n${CASE_HEADER}`)
  const measured = new Map<string, Awaited<ReturnType<typeof anySizeCase>>>()
  for (const search of searches) {
    const result = await anySizeCase(harness, search, { warmup: 1, measured: 3 })
    measured.set(search.name, result)
    console.log(formatCase(result.result))
  }
  if (only.length === 0) console.log(`\n== targets\n${formatTargets(anySizeTargets(measured))}`)
  console.log(
    `\nload average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (the machine is shared: ratios are medians of paired rounds)`,
  )
} finally {
  rmSync(spillRoot, { recursive: true, force: true })
}
