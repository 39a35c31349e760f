import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadCliHarness } from '/work/wt/any-size/bench/harness.js'
const root = process.argv[2]!
const tool = process.argv[3] ?? 'glob'
const pattern = process.argv[4] ?? '**/*'
const n = Number(process.argv[5] ?? 3)
const harness = await loadCliHarness(mkdtempSync(path.join(os.tmpdir(), 'prof-')))
for (let i = 0; i < n; i++) {
  const t = process.hrtime.bigint()
  const r = await harness.registry.execute(tool, { pattern }, { agent: { session: { header: { id: 'bench', cwd: root } } } })
  console.log(Number(process.hrtime.bigint() - t) / 1e6, 'ms', r.isError, (r.value as any)?.total)
}
