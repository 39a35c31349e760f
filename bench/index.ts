// What the content index costs and saves (docs/design.md#an-index-chooses-files-rg-decides-matches): build time
// and size, then narrow, medium and broad greps through a warm `dsh mcp` (its watcher on), p50/p95, each round
// beside a raw rg pass of the same search, and glob `**/*` beside `rg --files` and glob without the index; the
// same after 100 files changed; and the candidate share where a full scan wins (the broad sweep).
// Run (after npm run build): npm run bench:index -- [--rounds N] [--generated-files N] [--skip-npm] [--rebuild] [--reuse-index DIR --reuse-content-bytes N]
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import * as bashLocal from '@dsh/bash-local'
import * as indexLocal from '@dsh/index-local'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { REPO_ROOT } from './build.js'
import { ensureIndexTree } from './index-corpus.js'
import { median, pairedRatio, runInterleaved } from './measure.js'
// The index's change walk, timed alone as the floor of an update.
import { freshnessCommand } from '../packages/index-local/src/freshness.js'
// The tool's own rg builder, selection flags and named route, so the baselines run rg as grep does.
import { grepSelection, indexedSearch } from '../packages/tool-fs-search/src/engine/grep/command.js'
import { NO_LINKS } from '../packages/tool-fs-search/src/engine/links.js'
import { rgArgv } from '../packages/tool-fs-search/src/engine/rg-command.js'
import { parseList } from '../packages/tool-fs-search/src/engine/rg-file-lists.js'
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

// The flags dsh's grep gives rg (docs/design.md#grep-reads-rgs-null-line-output): what it prints, and which files it reads.
const GREP_OUTPUT = [
  '--null',
  '--line-number',
  '--with-filename',
  '--no-heading',
  '--color=never',
  '--max-columns=2000',
  '--max-columns-preview',
]
const GREP_SELECTION = grepSelection(NO_LINKS)

/** A raw rg pass as grep runs it, output drained: the floor a full scan cannot beat. */
function rgPass(cwd: string, pattern: string, extra: readonly string[] = []): Promise<number> {
  return drained(rgArgv({ rg: RG, flags: [...GREP_OUTPUT, ...GREP_SELECTION, ...extra], pattern, paths: ['.'] }), cwd)
}

/** rg's own list of what grep's walk of `root` reaches, as a warm server keeps it after a search (docs/design.md#named-candidates). */
function walkedOf(root: string): (local: string) => string | undefined {
  const argv = rgArgv({ rg: RG, flags: ['--files', '--null', ...GREP_SELECTION], paths: ['.'] })
  const { locals, prefix } = parseList(execFileSync(argv[0]!, argv.slice(1), { cwd: root, maxBuffer: 2 ** 31 }))
  return (local) => (locals.has(local) ? prefix + local : undefined)
}

/** How long `argv` takes in `cwd`, its output read and dropped. */
function drained(argv: readonly string[], cwd: string): Promise<number> {
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'ignore'] })
    child.stdout.resume()
    child.on('error', reject)
    child.on('close', () => resolve(Number(process.hrtime.bigint() - started) / 1e6))
  })
}

/** `rg --files` as glob runs it for every file, output drained: the listing the index's times cannot save. */
function rgFiles(cwd: string): Promise<number> {
  const argv = rgArgv({
    rg: RG,
    flags: ['--files', '--null', '--no-ignore', '--hidden', '--color=never', '--glob=**/*', ...VCS_EXCLUDES.map((v) => `--glob=!${v}`)],
  })
  return drained(argv, cwd)
}

/** `--reuse-index DIR`: an index built there by an earlier run of this bench (its build figures are not measured again). */
async function buildOrReuse(settings: indexLocal.LocalIndexSettings, root: string): Promise<indexLocal.BuildReport> {
  const at = args.indexOf('--reuse-index')
  if (at < 0) return indexLocal.buildIndex(settings, root)
  const { cpSync, readdirSync } = await import('node:fs')
  cpSync(args[at + 1]!, settings.dir, { recursive: true })
  const home = path.join(settings.dir, readdirSync(settings.dir)[0]!)
  const indexBytes = statSync(path.join(home, 'index.dshidx')).size
  const contentBytes = Number(args[args.indexOf('--reuse-content-bytes') + 1] ?? NaN)
  console.log('(index reused from an earlier run: its build was not timed again)')
  return { root, indexPath: home, files: NaN, alwaysRead: NaN, contentBytes, indexBytes, trigrams: NaN, elapsedMs: NaN }
}

interface IndexNote {
  used: boolean
  reason?: string
  candidates?: number
  indexedFiles?: number
}

/** A warm `dsh mcp` over stdio, as a host keeps it: the index's watcher lives as long as it does. */
async function startMcp(root: string, configFile: string, spillRoot: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'dsh.js'),
      'mcp',
      '--cwd',
      root,
      '--config',
      configFile,
      '--spill-dir',
      spillRoot,
    ],
    stderr: 'inherit',
  })
  const client = new Client({ name: 'dsh-bench-index', version: '0' })
  await client.connect(transport)
  const call = async (tool: 'grep' | 'glob', pattern: string, notes: IndexNote[]): Promise<number> => {
    const started = process.hrtime.bigint()
    const result = await client.callTool({ name: tool, arguments: { pattern } })
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (result.isError === true) throw new Error(`${tool} ${pattern} failed: ${JSON.stringify(result.content)}`)
    const index = (result.structuredContent as { index?: IndexNote } | undefined)?.index
    if (index !== undefined) notes.push(index)
    return ms
  }
  return {
    grep: (pattern: string, notes: IndexNote[]) => call('grep', pattern, notes),
    glob: (pattern: string, notes: IndexNote[]) => call('glob', pattern, notes),
    close: () => client.close(),
  }
}

/** A case-sensitive, single-line grep's plan, as the tool asks for it. */
function planOf(index: indexLocal.LocalSearchIndex, dir: string, pattern: string, walked?: (local: string) => string | undefined) {
  return index.plan({
    dir,
    pattern,
    caseInsensitive: false,
    multiline: false,
    ...(walked === undefined ? {} : { walked }),
    signal: new AbortController().signal,
  })
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

function how(note: IndexNote | undefined): string {
  if (note === undefined) return 'no index note'
  return note.used ? `index, ${note.candidates} of ${note.indexedFiles} files` : `full scan (${note.reason})`
}

interface Case {
  label: string
  pattern: string
}

async function benchCorpus(name: string, root: string, cases: Case[], sweep: string[]): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'dsh-bench-index-'))
  const indexDir = path.join(work, 'index')
  const configFile = path.join(work, 'config.json')
  writeFileSync(configFile, JSON.stringify({ 'index-local': { dir: indexDir } }))
  const settings = indexLocal.resolveIndexOptions({ dir: indexDir })
  const [rgTimes] = await runInterleaved([{ label: 'rg', run: () => rgPass(root, 'zqxjNoSuchTokenAnywhere') }], { warmup: 1, measured: 3 })
  const rgNoMatch = median(rgTimes!)
  const built = await buildOrReuse(settings, root)
  const gib = built.contentBytes / 2 ** 30
  console.log(`\n## ${name}: ${built.files} files, ${(built.contentBytes / 2 ** 20).toFixed(0)} MiB keyed`)
  console.log(
    `build ${(built.elapsedMs / 1000).toFixed(1)} s = ${(built.elapsedMs / rgNoMatch).toFixed(1)}x a full rg pass of ${(rgNoMatch / 1000).toFixed(2)} s ` +
      `(${(built.elapsedMs / 1000 / gib).toFixed(1)} s/GiB against rg's ${(rgNoMatch / 1000 / gib).toFixed(2)} s/GiB); ` +
      `index ${(built.indexBytes / 2 ** 20).toFixed(1)} MiB = ${(built.indexBytes / built.contentBytes).toFixed(2)}x the bytes keyed`,
  )
  const mcp = await startMcp(root, configFile, path.join(work, 'spill'))
  // The same server without the index, for glob: its mtime helper stats every file rg lists.
  const offConfig = path.join(work, 'config-off.json')
  writeFileSync(offConfig, JSON.stringify({ 'index-local': { dir: indexDir }, 'tool-fs-search': { index: 'off' } }))
  const mcpOff = await startMcp(root, offConfig, path.join(work, 'spill-off'))
  // The same plan in this process (its own watcher), so the rg part of grep's script (the candidates
  // named, the rest walked with the ignore file) can be timed alone: what dsh mcp adds to it is the
  // tool side. The plan names from rg's own list of the tree, as the warm server does from its own.
  const planner = indexLocal.createLocalSearchIndex({ dir: indexDir, watch: true, bash: bashLocal.createLocalBash({}) })
  const walked = walkedOf(root)
  const rgIndexed = async (pattern: string): Promise<number> => {
    const answer = await planOf(planner, root, pattern, walked)
    if (answer.kind !== 'candidates') return rgPass(root, pattern)
    try {
      const route = {
        ...(answer.ignoreFile === undefined ? {} : { ignoreFile: answer.ignoreFile }),
        ...(answer.namedFile === undefined ? {} : { namedFile: answer.namedFile }),
      }
      const script = indexedSearch({ rg: RG, selection: GREP_SELECTION, output: GREP_OUTPUT, pattern }, route)
      return await drained(['sh', '-c', `set -- -- .\n${script}`], root)
    } finally {
      await answer.release()
    }
  }
  let changed: string[] = []
  try {
    const first: IndexNote[] = []
    const firstMs = await mcp.grep(cases[0]!.pattern, first)
    console.log(`first indexed call through dsh mcp (starts the watcher, walks the tree once): ${firstMs.toFixed(0)} ms, ${how(first[0])}`)
    const run = async (when: string) => {
      console.log(`\n${when}: warm \`dsh mcp\`, ${ROUNDS} rounds interleaved with a raw rg pass of the same search`)
      console.log('| case | pattern | dsh mcp p50 | p95 | raw rg p50 | p50 / rg (paired) | rg with the plan p50 | tool side | how |')
      console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
      for (const c of cases) {
        const notes: IndexNote[] = []
        const [viaMcp, rg, planned] = await runInterleaved(
          [
            { label: 'mcp', run: () => mcp.grep(c.pattern, notes) },
            { label: 'rg', run: () => rgPass(root, c.pattern) },
            { label: 'rg with the plan', run: () => rgIndexed(c.pattern) },
          ],
          { warmup: 1, measured: ROUNDS },
        )
        const side = viaMcp!.map((ms, k) => ms - planned![k]!)
        console.log(
          `| ${c.label} | \`${c.pattern}\` | ${median(viaMcp!).toFixed(0)} | ${percentile(viaMcp!, 95).toFixed(0)} | ${median(rg!).toFixed(0)} | ${pairedRatio(viaMcp!, rg!).toFixed(3)}x | ${median(planned!).toFixed(0)} | ${median(side).toFixed(0)} ms | ${how(notes.at(-1))} |`,
        )
      }
      // glob newest first: the index's recorded times (docs/design.md#glob-reads-times-from-the-index)
      // against the mtime helper's stat of every file, and rg's listing alone.
      const notes: IndexNote[] = []
      const [globbed, listed, helped] = await runInterleaved(
        [
          { label: 'glob', run: () => mcp.glob('**/*', notes) },
          { label: 'rg --files', run: () => rgFiles(root) },
          { label: 'glob, index off', run: () => mcpOff.glob('**/*', []) },
        ],
        { warmup: 1, measured: ROUNDS },
      )
      console.log(
        '\n| case | dsh mcp p50 | p95 | rg --files p50 | p50 / rg (paired) | index off p50 | p50 / index off (paired) | times from the index |',
      )
      console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
      const note = notes.at(-1)
      console.log(
        `| glob \`**/*\` | ${median(globbed!).toFixed(0)} | ${percentile(globbed!, 95).toFixed(0)} | ${median(listed!).toFixed(0)} | ${pairedRatio(globbed!, listed!).toFixed(2)}x | ${median(helped!).toFixed(0)} | ${pairedRatio(globbed!, helped!).toFixed(2)}x | ${note?.used === true ? `${note.candidates} of ${note.indexedFiles}` : how(note)} |`,
      )
    }
    await run('Queries on the fresh index')
    // 100 files changed after the build: a chmod to the same mode sets ctime as a write does, and
    // leaves the shared corpus's contents and mtimes alone. The watcher hears them; no walk.
    const list = execFileSync(RG, ['--no-config', '--files', '--hidden'], { cwd: root, maxBuffer: 1 << 30 })
      .toString()
      .split('\n')
      .filter(Boolean)
    changed = Array.from({ length: 100 }, (_, i) => list[Math.floor((i * list.length) / 100)]!)
    for (const file of changed) chmodSync(path.join(root, file), statSync(path.join(root, file)).mode & 0o7777)
    // No ignore file changed: the warm server's list holds (its walk mark), and each plan walks the
    // changed files itself (docs/design.md#a-list-outlives-changes-that-are-walked).
    const after: IndexNote[] = []
    const afterMs = await mcp.grep(cases[0]!.pattern, after)
    console.log(`\nfirst call after 100 files changed (the watcher's events, no walk): ${afterMs.toFixed(0)} ms, ${how(after[0])}`)
    await run('After 100 files changed (no rebuild)')
  } finally {
    await mcp.close()
    await mcpOff.close()
    await indexLocal.closeIndexWatchers()
  }
  // Where a full scan is as fast: the plan (watcher on, broadFraction 1, so the index is used whatever
  // its candidates) and rg with its ignore file, against rg's full pass, by the share of files the
  // index leaves. rg alone on both sides: the tool's handling of the matches is the same either way.
  if (sweep.length > 0) {
    const index = indexLocal.createLocalSearchIndex({ dir: indexDir, watch: true, broadFraction: 1, bash: bashLocal.createLocalBash({}) })
    console.log(`\nBroad fallback sweep (plan + rg with its ignore file, against rg's full pass): ${ROUNDS} rounds`)
    console.log('| pattern | candidates | share of files | indexed p50 | rg p50 | indexed / rg (paired) |')
    console.log('| --- | --- | --- | --- | --- | --- |')
    for (const pattern of sweep) {
      let share = ''
      const [indexed, rg] = await runInterleaved(
        [
          {
            label: 'indexed',
            run: async () => {
              const started = process.hrtime.bigint()
              const answer = await planOf(index, root, pattern)
              if (answer.kind !== 'candidates') throw new Error(`${pattern}: ${answer.reason} ${answer.detail}`)
              await rgPass(root, pattern, [`--ignore-file=${answer.ignoreFile!}`])
              await answer.release()
              share = `${answer.candidates} | ${((answer.candidates / answer.indexedFiles) * 100).toFixed(1)}%`
              return Number(process.hrtime.bigint() - started) / 1e6
            },
          },
          { label: 'rg', run: () => rgPass(root, pattern) },
        ],
        { warmup: 1, measured: ROUNDS },
      )
      console.log(
        `| \`${pattern}\` | ${share} | ${median(indexed!).toFixed(0)} | ${median(rg!).toFixed(0)} | ${pairedRatio(indexed!, rg!).toFixed(2)}x |`,
      )
    }
    await indexLocal.closeIndexWatchers()
  }
  // `dsh index` run again: an update keys the 100 changed files (docs/design.md#an-update-keys-what-changed);
  // its floor is the change walk, timed alone beside it.
  const bash = bashLocal.createLocalBash({})
  const [updates, walks] = await runInterleaved(
    [
      {
        label: 'update',
        run: async () => {
          const report = await indexLocal.updateIndex(settings, root, bash)
          if (report.kind !== 'update') throw new Error(`built whole: ${report.why}`)
          return report.elapsedMs
        },
      },
      {
        label: 'walk',
        run: async () => {
          const started = process.hrtime.bigint()
          // The update's own walk command, marked now: every entry statted, none printed.
          await promisify(execFile)('sh', ['-c', freshnessCommand(root, BigInt(Date.now()) * 1_000_000n)])
          return Number(process.hrtime.bigint() - started) / 1e6
        },
      },
    ],
    { warmup: 1, measured: ROUNDS },
  )
  console.log(
    `\nupdate after 100 changed files (\`dsh index\` again, in process): p50 ${median(updates!).toFixed(0)} ms; the change walk alone (find of every entry) p50 ${median(walks!).toFixed(0)} ms`,
  )
  // The same update served by a warm process (docs/design.md#a-warm-process-updates-its-index): its
  // watcher recorded the changes, so no walk. Each round changes the same 100 files again first.
  const served = indexLocal.createLocalSearchIndex({ dir: indexDir, watch: true, refreshAfter: 0, bash })
  const seeded = await planOf(served, root, cases[0]!.pattern)
  if (seeded.kind === 'candidates') await seeded.release()
  let handedOn = 0
  const [refreshes] = await runInterleaved(
    [
      {
        label: 'refresh',
        run: async () => {
          for (const file of changed) chmodSync(path.join(root, file), statSync(path.join(root, file)).mode & 0o7777)
          const report = await served.refresh(root)
          if (report.kind !== 'updated') throw new Error(`not refreshed: ${report.why}`)
          if (report.handedOn) handedOn++
          return report.elapsedMs
        },
      },
    ],
    { warmup: 1, measured: ROUNDS },
  )
  await indexLocal.closeIndexWatchers()
  console.log(
    `update after 100 changed files served by a warm process (its watcher's record, no walk): p50 ${median(refreshes!).toFixed(0)} ms, p95 ${percentile(refreshes!, 95).toFixed(0)} ms; the watcher handed on in ${handedOn} of ${ROUNDS + 1}`,
  )
  // The same from the command line (docs/design.md#dsh-index-in-the-warm-server): `dsh index` in a
  // fresh process each round, which the warm server (started and seeded by a grep) takes and answers
  // from its watcher; the client's whole wall time, its start included.
  const runtime = mkdtempSync(path.join(tmpdir(), 'dsh-bench-runtime-'))
  chmodSync(runtime, 0o700)
  const dshBin = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'dsh.js')
  const cliEnv: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtime, DSH_DAEMON_IDLE_SECONDS: '600' }
  delete cliEnv.DSH_NO_DAEMON
  const cli = async (argv: string[]): Promise<{ ms: number; stdout: string }> => {
    const started = process.hrtime.bigint()
    const { stdout } = await promisify(execFile)(process.execPath, [dshBin, '--config', configFile, ...argv], {
      cwd: root,
      env: cliEnv,
      maxBuffer: 1 << 26,
    })
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, stdout }
  }
  try {
    // The first call runs in process and starts the server; once the server is warm, a served grep
    // starts its watcher of the index (a walk), and `dsh index` is served from it. Until then the
    // call runs in process (the server is busy warming up, or keeps no watcher yet): try again.
    const fromWatcher = "from the warm server's watcher"
    let ready = false
    for (let tries = 0; tries < 30 && !ready; tries++) {
      await cli(['--spill-dir', path.join(work, 'spill-cli'), 'grep', cases[0]!.pattern]).catch(() => undefined)
      ready = (await cli(['index'])).stdout.includes(fromWatcher)
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    if (!ready) throw new Error('the warm server never took `dsh index`')
    const [served] = await runInterleaved(
      [
        {
          label: 'dsh index, served',
          run: async () => {
            for (const file of changed) chmodSync(path.join(root, file), statSync(path.join(root, file)).mode & 0o7777)
            const { ms, stdout } = await cli(['index'])
            if (!stdout.includes(fromWatcher)) throw new Error(`dsh index was not served from the watcher: ${stdout}`)
            return ms
          },
        },
      ],
      { warmup: 1, measured: ROUNDS },
    )
    console.log(
      `\`dsh index\` again after 100 changed files, through the warm server (a fresh dsh process each, wall time): p50 ${median(served!).toFixed(0)} ms, p95 ${percentile(served!, 95).toFixed(0)} ms`,
    )
  } finally {
    // The server this section started: its command line names its socket, under `runtime`.
    spawnSync('pkill', ['-f', `daemon ${runtime}`])
    rmSync(runtime, { recursive: true, force: true })
  }
  // A rebuild costs what the build did; --rebuild times it again.
  if (args.includes('--rebuild')) {
    const rebuilt = await indexLocal.buildIndex(settings, root)
    console.log(`\nrebuild after 100 changed files: ${(rebuilt.elapsedMs / 1000).toFixed(1)} s`)
  }
  rmSync(work, { recursive: true, force: true })
}

console.log(`# Index bench (${new Date().toISOString()}; 2 cores shared with other jobs; warm page cache)`)
const npm = path.join(CACHE, 'npm-tree')
if (existsSync(npm) && !args.includes('--skip-npm')) {
  await benchCorpus(
    'npm tree',
    npm,
    [
      { label: 'narrow literal', pattern: 'createElementNS' },
      { label: 'medium regex', pattern: 'function\\s+use[A-Z]\\w+' },
      { label: 'rare regex', pattern: 'export declare function \\w+Sync' },
      { label: 'broad', pattern: 'Object\\.defineProperty' },
    ],
    [],
  )
}
const generated = ensureIndexTree(CACHE, GENERATED_FILES)
await benchCorpus(
  `generated code tree`,
  generated,
  [
    { label: 'narrow literal', pattern: 'loadTree7001' },
    { label: 'medium regex', pattern: 'function saveQuery\\d+\\(' },
    // Most files hold both words, few a line with them together: broad for the index, not for the output.
    { label: 'broad', pattern: 'return listSet' },
  ],
  // Vocabulary words of falling rank (the tree's Zipf draw), from a few files' worth to most of them.
  ['getItem3000', 'parseEmit1000', 'fileFile', 'userUser', 'return listSet', 'listSet'],
)
