// What following symbolic links costs (docs/design.md#symbolic-links): each search of a directory first
// lists the links below it. The cases time the tool as it is (its scan remembered between calls), the
// same tool walking the tree for links before every call (its first call in a process), the tool whose
// link scan finds nothing (the search as it ran before links were followed), and rg, on a tree without
// links and on a pnpm-style tree of 10,000 links.
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import * as access from '@dsh/access'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type BashExecutor, type BashRunResult, type Harness } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import type { CaseResult } from './cases.js'
import { callTool } from './harness.js'
import { runInterleaved, type Contender, type Rounds } from './measure.js'
import { drainProcess, elapsedMs } from './processes.js'
// The tool's own rg builder and VCS excludes, so a baseline runs rg as the tool does.
import { rgArgv } from '../packages/tool-fs-search/src/engine/rg-command.js'
import { VCS_EXCLUDES } from '../packages/tool-fs-search/src/engine/vcs.js'

/** How many packages (one link each) the pnpm-style tree holds. */
export const LINKED_PACKAGES = 10_000
/** The needle of the linked tree: in one package in 50, so grep's answer is small and its walk is the cost. */
export const LINK_NEEDLE = 'linkedNeedle'
// Bump when the generator's output changes: the version is part of the cached folder's name.
const GENERATOR_VERSION = 1
const MTIME = 1_700_000_000

/**
 * A pnpm-style tree, generated once into the cache: `store/pkg-NNNNN@1.0.0/{index.js,lib/util.js}` and
 * `node_modules/pkg-NNNNN -> ../store/pkg-NNNNN@1.0.0`, 10,000 links to directories inside the tree.
 */
export function ensureLinkedTree(cacheDir: string): string {
  const root = path.join(cacheDir, `generated-links-v${GENERATOR_VERSION}`)
  if (existsSync(root)) return root
  const partial = `${root}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(path.join(partial, 'node_modules'), { recursive: true })
  for (let i = 0; i < LINKED_PACKAGES; i++) {
    const name = `pkg-${String(i).padStart(5, '0')}`
    const store = path.join(partial, 'store', `${name}@1.0.0`)
    mkdirSync(path.join(store, 'lib'), { recursive: true })
    const needle = i % 50 === 7 ? ` // ${LINK_NEEDLE}` : ''
    writeFileSync(path.join(store, 'index.js'), `export { util } from './lib/util.js'${needle}\nexport const name = '${name}'\n`)
    writeFileSync(path.join(store, 'lib', 'util.js'), `export function util(value) {\n  return value\n}\n`)
    for (const file of ['index.js', 'lib/util.js']) utimesSync(path.join(store, file), MTIME + i, MTIME + i)
    symlinkSync(`../store/${name}@1.0.0`, path.join(partial, 'node_modules', name))
  }
  renameSync(partial, root)
  return root
}

// The scan's find prints links NUL-separated: packages/tool-fs-search/src/engine/links.ts scanCommand.
const isLinkScan = (command: string): boolean => command.includes('-type l -print0')

/** A run that printed nothing and exited 0: the scan's answer on a tree without links. */
const NOTHING_FOUND: BashRunResult = {
  exitCode: 0,
  signal: null,
  stop: 'exit',
  durationMs: 0,
  stdout: { text: '', truncated: false, totalBytes: 0 },
  stderr: { text: '', truncated: false, totalBytes: 0 },
}

/** The link-scan cost of a harness's calls: every scan's time through its executor, summed. */
export interface ScanClock {
  harness: Harness
  scanMs: () => number
}

/**
 * The tools as `dsh` loads them for a search (file system and access policy included, since links are
 * judged through them), over an executor that either times each link scan or answers it with no links
 * without running it.
 */
async function loadLinksHarness(spillRoot: string, scan: 'run' | 'skip', remember = true): Promise<ScanClock> {
  const local = bashLocal.createLocalBash()
  let scanMs = 0
  const bash: BashExecutor = {
    resolve: (request) => local.resolve(request),
    run: async (spec) => {
      if (!isLinkScan(spec.command)) return local.run(spec)
      if (scan === 'skip') return NOTHING_FOUND
      const started = process.hrtime.bigint()
      const result = await local.run(spec)
      scanMs += elapsedMs(started)
      return result
    },
  }
  const harness = await loadHarness({
    plugins: [spillLocal, fsLocal, access, toolFsSearch],
    services: { bash },
    config: { [spillLocal.name]: { root: spillRoot }, [toolFsSearch.name]: { rememberLinkScans: remember } },
  })
  return { harness, scanMs: () => scanMs }
}

/** Both harnesses of the links cases. */
export interface LinksContext {
  rg: string
  following: ScanClock
  walking: ScanClock
  unscanned: ScanClock
}

/** Loads the harness that remembers its link scans, the one that walks before every call, and the one whose scan finds none. */
export async function loadLinksContext(rg: string, spillRoot: string): Promise<LinksContext> {
  return {
    rg,
    following: await loadLinksHarness(spillRoot, 'run'),
    walking: await loadLinksHarness(spillRoot, 'run', false),
    unscanned: await loadLinksHarness(spillRoot, 'skip'),
  }
}

/** One search of a links case: which tool, its arguments, and the raw rg it is measured against. */
export interface LinksSearch {
  corpus: string
  root: string
  tool: 'grep' | 'glob'
  args: Record<string, string>
  rgLabel: string
  /** rg's whole argv, from the tool's own builder. */
  rgArgv: string[]
}

/**
 * The tool as it is, the tool walking for links every call, the tool without its link scan, and rg,
 * interleaved. The detail names the walk's median share of a walking call, so the cost is seen apart
 * from the noise of the search.
 */
export async function linksCase(ctx: LinksContext, search: LinksSearch, rounds: Rounds): Promise<CaseResult> {
  let total = 0
  const tool = (clock: ScanClock, label: string): Contender => ({
    label,
    run: async () => {
      const started = process.hrtime.bigint()
      const result = await callTool(clock.harness, search.tool, search.args, search.root)
      const ms = elapsedMs(started)
      if (clock === ctx.following) total = (result.value as { total: number }).total
      return ms
    },
  })
  const scans: number[] = []
  const walking = tool(ctx.walking, 'tool, walking every call')
  const contenders: Contender[] = [
    tool(ctx.following, 'tool (links followed)'),
    {
      label: walking.label,
      run: async () => {
        const before = ctx.walking.scanMs()
        const ms = await walking.run()
        scans.push(ctx.walking.scanMs() - before)
        return ms
      },
    },
    tool(ctx.unscanned, 'tool, scan finds no link'),
    { label: search.rgLabel, run: async () => (await drainProcess(search.rgArgv, { cwd: search.root })).ms },
  ]
  const times = await runInterleaved(contenders, rounds)
  const scanMedian = [...scans.slice(rounds.warmup)].sort((a, b) => a - b)[Math.floor((scans.length - rounds.warmup) / 2)] ?? 0
  return {
    corpus: search.corpus,
    name: `links: ${search.tool} ${search.args.pattern}`,
    detail: `\`${search.args.pattern}\`: ${total.toLocaleString('en')} ${search.tool === 'grep' ? 'matches' : 'files'}; a walk for links ${scanMedian.toFixed(1)} ms of a walking call (median)`,
    labels: contenders.map((c) => c.label),
    times,
  }
}

/** The links cases of a corpus: a grep and a glob, with the rg each is measured against (the tool's own builder). */
export function linksSearches(
  rg: string,
  corpus: string,
  root: string,
  grepPattern: string,
  globPattern: string,
  follow: boolean,
): LinksSearch[] {
  const followFlag = follow ? ['--follow'] : []
  const listFlags = ['--files', ...followFlag, '--no-ignore', '--hidden', '--null', `--glob=${globPattern}`]
  return [
    {
      corpus,
      root,
      tool: 'grep',
      args: { pattern: grepPattern },
      rgLabel: follow ? 'rg --follow' : 'rg',
      rgArgv: rgArgv({ rg, flags: [...followFlag, '--no-heading', '-n'], pattern: grepPattern, paths: ['.'] }),
    },
    {
      corpus,
      root,
      tool: 'glob',
      args: { pattern: globPattern },
      rgLabel: follow ? 'rg --files --follow' : 'rg --files',
      rgArgv: rgArgv({ rg, flags: [...listFlags, ...VCS_EXCLUDES.map((d) => `--glob=!${d}`)] }),
    },
  ]
}
