// What the content index costs and saves (docs/design.md#an-index-chooses-files-rg-decides-matches): build time
// and size, then narrow, medium and broad greps through a warm in-process harness with the index and without
// it, beside a raw rg pass of the same search, interleaved; then the same after 100 files changed.
// Run: npx tsx bench/index.ts [--rounds N] [--generated-files N]
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import * as access from '@dsh/access'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as indexLocal from '@dsh/index-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { median, runInterleaved } from './measure.js'
// The tool's own rg builder and VCS excludes, so the baseline runs rg as grep does.
import { rgArgv } from '../packages/tool-fs-search/src/engine/rg-command.js'
import { VCS_EXCLUDES } from '../packages/tool-fs-search/src/engine/vcs.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at < 0 ? fallback : Number(args[at + 1])
}
const ROUNDS = option('--rounds', 5)
const GENERATED_FILES = option('--generated-files', 100_000)
const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'dsh-bench')
const RG = (await import('@vscode/ripgrep')).rgPath

/** A deterministic code-like tree: identifiers drawn from a Zipf-like vocabulary, ~3 KB a file. */
function ensureGeneratedTree(files: number): string {
  const root = path.join(CACHE, `index-code-${files}-v2`)
  if (existsSync(root)) return root
  const partial = `${root}.partial-${process.pid}`
  let seed = 42
  const random = () => {
    // Math.imul keeps the LCG exact: a plain product passes 2^53 and loses the low bits.
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed / 2 ** 32
  }
  const syllables = [
    'get',
    'set',
    'load',
    'save',
    'user',
    'item',
    'list',
    'map',
    'node',
    'tree',
    'value',
    'key',
    'file',
    'path',
    'read',
    'write',
    'parse',
    'emit',
    'cache',
    'state',
    'index',
    'query',
    'token',
    'count',
  ]
  const vocabulary = Array.from({ length: 8000 }, (_, i) => {
    const a = syllables[i % syllables.length]!
    const b = syllables[Math.floor(i / syllables.length) % syllables.length]!
    const c = i >= 576 ? String(i) : ''
    return `${a}${b[0]!.toUpperCase()}${b.slice(1)}${c}`
  })
  // Zipf-like: the rank of a word is drawn as 8000^u, so a few words are everywhere and most are rare.
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.pow(vocabulary.length, random())) - 1)]!
  for (let i = 0; i < files; i++) {
    const dir = path.join(partial, `pkg${i % 100}`, `mod${Math.floor(i / 100) % 50}`)
    if (i < 5000) mkdirSync(dir, { recursive: true })
    const lines: string[] = []
    for (let l = 0; l < 60; l++) {
      const r = random()
      if (r < 0.2) lines.push(`import { ${word()} } from './${word()}'`)
      else if (r < 0.5) lines.push(`export function ${word()}(${word()}, ${word()}) {`)
      else if (r < 0.8) lines.push(`  const ${word()} = ${word()}.${word()}(${word()})`)
      else lines.push(`  return ${word()} // ${word()} ${word()}`)
    }
    writeFileSync(path.join(dir, `f${i}.ts`), `${lines.join('\n')}\n`)
  }
  renameSync(partial, root)
  return root
}

/** A raw rg pass as grep runs it, output drained: the floor a full scan cannot beat. */
function rgPass(cwd: string, pattern: string): Promise<number> {
  const argv = rgArgv({
    rg: RG,
    flags: [
      '--null',
      '--line-number',
      '--with-filename',
      '--no-heading',
      '--color=never',
      '--hidden',
      '--max-columns=2000',
      '--max-columns-preview',
      ...VCS_EXCLUDES.map((v) => `--glob=!${v}`),
    ],
    pattern,
    paths: ['.'],
  })
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'ignore'] })
    child.stdout.resume()
    child.on('error', reject)
    child.on('close', () => resolve(Number(process.hrtime.bigint() - started) / 1e6))
  })
}

async function harnessWith(index: 'auto' | 'off', indexDir: string, spillRoot: string): Promise<Harness> {
  return loadHarness({
    plugins: [bashLocal, spillLocal, fsLocal, access, indexLocal, toolFsSearch],
    config: { 'spill-local': { root: spillRoot }, 'index-local': { dir: indexDir }, 'tool-fs-search': { index } },
  })
}

async function timedGrep(h: Harness, pattern: string, cwd: string, uses: string[]): Promise<number> {
  const started = process.hrtime.bigint()
  const result = await h.registry.execute('grep', { pattern }, { agent: { session: { header: { id: 'bench', cwd } } } })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.isError) throw new Error(`grep ${pattern} failed: ${result.content}`)
  const index = (result.value as { index?: { used: boolean; reason?: string; candidates?: number } }).index
  if (index !== undefined) uses.push(index.used ? `index (${index.candidates} candidates)` : `full scan (${index.reason})`)
  return ms
}

interface Case {
  label: string
  pattern: string
}

async function benchCorpus(name: string, root: string, cases: Case[]): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'dsh-bench-index-'))
  const indexDir = path.join(work, 'index')
  const on = await harnessWith('auto', indexDir, path.join(work, 'spill'))
  const off = await harnessWith('off', indexDir, path.join(work, 'spill'))
  const settings = (on.get('searchIndex') as indexLocal.LocalSearchIndex).settings
  const rgNoMatch = median(
    (await runInterleaved([{ label: 'rg', run: () => rgPass(root, 'zqxjNoSuchTokenAnywhere') }], { warmup: 1, measured: 3 }))[0]!,
  )
  const built = await indexLocal.buildIndex(settings, root)
  console.log(`\n## ${name}: ${built.files} files, ${(built.contentBytes / 2 ** 20).toFixed(0)} MiB keyed`)
  console.log(
    `build ${(built.elapsedMs / 1000).toFixed(1)} s (${(built.elapsedMs / rgNoMatch).toFixed(1)}x a full rg pass of ${(rgNoMatch / 1000).toFixed(2)} s); index ${(built.indexBytes / 2 ** 20).toFixed(1)} MiB = ${(built.indexBytes / built.contentBytes).toFixed(2)}x the bytes keyed`,
  )
  const run = async (when: string) => {
    console.log(`\n${when}: median of ${ROUNDS} interleaved rounds, ms (ratio to rg's full pass)`)
    console.log('| case | pattern | with index | without | raw rg | index / rg | how |')
    console.log('| --- | --- | --- | --- | --- | --- | --- |')
    for (const c of cases) {
      const uses: string[] = []
      const [withIndex, without, rg] = await runInterleaved(
        [
          { label: 'index', run: () => timedGrep(on, c.pattern, root, uses) },
          { label: 'off', run: () => timedGrep(off, c.pattern, root, []) },
          { label: 'rg', run: () => rgPass(root, c.pattern) },
        ],
        { warmup: 1, measured: ROUNDS },
      )
      const [a, b, r] = [median(withIndex!), median(without!), median(rg!)]
      console.log(
        `| ${c.label} | \`${c.pattern}\` | ${a.toFixed(0)} | ${b.toFixed(0)} | ${r.toFixed(0)} | ${(a / r).toFixed(2)}x | ${uses.at(-1)} |`,
      )
    }
  }
  await run('Queries on the fresh index')
  // 100 files changed after the build: each is read by every search until the next build. A chmod to
  // the same mode sets ctime as a write does, and leaves the shared corpus's contents and mtimes alone.
  const changed: string[] = []
  const { execFileSync } = await import('node:child_process')
  const list = execFileSync(RG, ['--no-config', '--files', '--hidden'], { cwd: root, maxBuffer: 1 << 30 })
    .toString()
    .split('\n')
    .filter(Boolean)
  for (let i = 0; i < 100; i++) changed.push(list[Math.floor((i * list.length) / 100)]!)
  for (const file of changed) chmodSync(path.join(root, file), statSync(path.join(root, file)).mode & 0o7777)
  await run('After 100 files changed (no rebuild)')
  const rebuilt = await indexLocal.buildIndex(settings, root)
  console.log(
    `\nrebuild after 100 changed files: ${(rebuilt.elapsedMs / 1000).toFixed(1)} s (no incremental update: a rebuild is the update)`,
  )
  rmSync(work, { recursive: true, force: true })
}

console.log(`# Index bench (${new Date().toISOString()}; 2 cores shared with other jobs; warm page cache)`)
const npm = path.join(CACHE, 'npm-tree')
if (existsSync(npm)) {
  await benchCorpus('npm tree', npm, [
    { label: 'narrow literal', pattern: 'createElementNS' },
    { label: 'medium regex', pattern: 'function\\s+use[A-Z]\\w+' },
    { label: 'rare regex', pattern: 'export declare function \\w+Sync' },
    { label: 'broad', pattern: 'Object\\.defineProperty' },
  ])
}
const generated = ensureGeneratedTree(GENERATED_FILES)
await benchCorpus(`generated code tree`, generated, [
  { label: 'narrow literal', pattern: 'loadTree7001' },
  { label: 'medium regex', pattern: 'function saveQuery\\d+\\(' },
  { label: 'broad', pattern: 'getSet' },
])
