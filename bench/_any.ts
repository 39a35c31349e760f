import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { benchCacheDir } from './cache-dir.ts'
import { loadCliHarness } from './harness.ts'
import { anySizeCase, anySizeSearches, anySizeTargets, ensureFileTree, ensureHugeMatchTree } from './any-size.ts'
import { formatCase, formatTargets, CASE_HEADER } from './report.ts'
import { warmPageCache } from './warm.ts'
const rg = (await import('@vscode/ripgrep')).rgPath
const c = benchCacheDir()
let t = Date.now()
const roots = { hugeMatch: ensureHugeMatchTree(c), files100k: ensureFileTree(c, 100_000), files1m: ensureFileTree(c, 1_000_000), npmTree: path.join(c, 'npm-tree') }
console.log('generated in', Date.now() - t)
for (const r of [roots.hugeMatch, roots.files100k, roots.files1m]) console.log(await warmPageCache(rg, r))
const h = await loadCliHarness(mkdtempSync(path.join(os.tmpdir(), 'any-')))
const m = new Map()
console.log(CASE_HEADER)
for (const s of anySizeSearches(roots)) { const x = await anySizeCase(h, rg, s, { warmup: 0, measured: 1 }); m.set(s.name, x); console.log(formatCase(x.result)) }
console.log(formatTargets(anySizeTargets(m)))
