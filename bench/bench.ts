import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { splitToolTime } from './breakdown.js'
import { CLAUDE_CODE_CASES, claudeGrepCase, loadClaudeHarness } from './claude-code.js'
import { benchCacheDir } from './cache-dir.js'
import {
  cliGrepCase,
  globCase,
  grepCase,
  grepPatternCase,
  overflowCase,
  type BenchContext,
  type CaseResult,
  type Corpus,
  type GrepSearch,
} from './cases.js'
import { ensureManyMatchTree, MANY_MATCH_CASES } from './corpus-many.js'
import { ensureGeneratedTree, GENERATED_PATTERNS, SMALL_TREE, TINY_TREE } from './corpus-generated.js'
import { ensureNpmTree } from './corpus-npm.js'
import { loadCliHarness, loadRecordingHarness } from './harness.js'
import { anySizeCase, anySizeSearches, anySizeTargets, ensureFileTree, ensureHugeMatchTree } from './any-size.js'
import { ensureLinkedTree, LINK_NEEDLE, linksCase, linksSearches, loadLinksContext } from './links.js'
import type { Rounds } from './measure.js'
import { CASE_HEADER, formatCase, formatSplits, formatTargets, ratioOf } from './report.js'
import { mcpCase } from './mcp.js'
import { measurePeakRss } from './rss.js'
import { startCases } from './start.js'
import { checkTargets } from './targets.js'
import { warmPageCache } from './warm.js'

/** Patterns sized on the npm tree with rg 15 (counts in docs/performance.md): < 10, ~3k, ~20k matches, and > 20 MB of grep's raw output. */
const NPM_PATTERNS = { narrow: 'SvgIconTypeMap', medium: 'Paginator', broad: 'export declare', overflow: 'return' }
const GLOB_PATTERNS = ['**/*.ts', '**/*'] as const
/** The corpus name the many-match cases report under. */
const MANY = 'many-match'

/** The any-size cases: each call reads hundreds of MB, so few rounds. */
const ANY_SIZE_ROUNDS: Rounds = { warmup: 1, measured: 3 }

/** Rounds per kind of case; the full run's sorted-glob baseline (~3 s a call) is why glob gets fewer. */
const ROUNDS = {
  full: {
    grep: { warmup: 2, measured: 7 },
    glob: { warmup: 1, measured: 5 },
    cli: { warmup: 3, measured: 15 },
    mcp: { warmup: 5, measured: 31 },
  },
  quick: {
    grep: { warmup: 1, measured: 5 },
    glob: { warmup: 1, measured: 5 },
    cli: { warmup: 2, measured: 10 },
    mcp: { warmup: 3, measured: 15 },
  },
} satisfies Record<string, Record<string, Rounds>>

const print = (text: string): void => void process.stdout.write(`${text}\n`)

/** The whole bench: corpora, warm-up, interleaved cases, RSS, the time split, targets, worst ratio. */
export async function runBench(quick: boolean): Promise<void> {
  const rounds = quick ? ROUNDS.quick : ROUNDS.full
  const cacheDir = benchCacheDir()
  const rg = (await import('@vscode/ripgrep')).rgPath
  const small: Corpus = { name: 'generated-small', root: ensureGeneratedTree(cacheDir, SMALL_TREE), patterns: GENERATED_PATTERNS }
  const tiny: Corpus = { name: 'generated-tiny', root: ensureGeneratedTree(cacheDir, TINY_TREE), patterns: GENERATED_PATTERNS }
  const corpora = quick ? [small] : [{ name: 'npm-tree', root: ensureNpmTree(cacheDir), patterns: NPM_PATTERNS }, small]
  const main = corpora[0]!

  printMachine(rg, quick)
  for (const corpus of [...corpora, tiny])
    print(`corpus ${corpus.name}: ${(await warmPageCache(rg, corpus.root)).toLocaleString('en')} files, ${corpus.root}`)

  const spillRoot = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-spill-'))
  try {
    const ctx: BenchContext = {
      rg,
      harness: await loadCliHarness(spillRoot),
      recording: await loadRecordingHarness(spillRoot),
      rawOutputMaxBytes: toolFsSearch.Config.parse({}).rawOutputMaxBytes,
    }
    const results = new Map<string, CaseResult>()
    const claude = await loadClaudeHarness(spillRoot)
    for (const corpus of corpora) {
      print(`\n== ${corpus.name} (in process, interleaved; tool vs it = median of per-round tool/baseline)\n${CASE_HEADER}`)
      for (const size of ['narrow', 'medium', 'broad'] as const) report(results, await grepCase(ctx, corpus, size, rounds.grep))
      report(results, await overflowCase(ctx, corpus, rounds.grep))
      for (const pattern of GLOB_PATTERNS) report(results, await globCase(ctx, corpus, pattern, rounds.glob))
      for (const mode of CLAUDE_CODE_CASES) report(results, await claudeGrepCase(claude, rg, corpus, mode, rounds.grep))
    }
    // The cases whose cost is their matches (full run only: each call takes about a second).
    const many: GrepSearch[] = quick
      ? []
      : MANY_MATCH_CASES.map((c) => ({ corpus: MANY, root: ensureManyMatchTree(cacheDir, c.tree), name: c.name, pattern: c.pattern }))
    if (many.length > 0) {
      for (const root of new Set(many.map((search) => search.root))) await warmPageCache(rg, root)
      print(`\n== many matches (in process, interleaved; tool vs it = median of per-round tool/baseline)\n${CASE_HEADER}`)
      for (const search of many) report(results, await grepPatternCase(ctx, search, rounds.grep))
      print(`\n== many matches as processes (dsh grep vs rg, interleaved; tool vs it = median of per-round ratios)\n${CASE_HEADER}`)
      for (const search of many) {
        const detail = `\`${search.pattern}\` on ${path.basename(search.root)}`
        report(results, await cliGrepCase(ctx, { ...search, name: `dsh ${search.name} (process)` }, spillRoot, rounds.grep, detail))
      }
    }

    // Results of any size (full run only: the trees take minutes to write once, each call seconds).
    const anySize = new Map<string, Awaited<ReturnType<typeof anySizeCase>>>()
    if (!quick) {
      const roots = {
        hugeMatch: ensureHugeMatchTree(cacheDir),
        files100k: ensureFileTree(cacheDir, 100_000),
        files1m: ensureFileTree(cacheDir, 1_000_000),
        npmTree: main.root,
      }
      for (const root of [roots.hugeMatch, roots.files100k, roots.files1m]) await warmPageCache(rg, root)
      print(`\n== results of any size (in process, interleaved; tool vs it = median of per-round tool/baseline)\n${CASE_HEADER}`)
      for (const search of anySizeSearches(rg, roots)) {
        const measured = await anySizeCase(ctx.harness, search, ANY_SIZE_ROUNDS)
        anySize.set(search.name, measured)
        print(formatCase(measured.result))
      }
    }

    // What following links costs: on the main corpus (no links) and on a pnpm-style tree of 10,000.
    const linked = ensureLinkedTree(cacheDir)
    print(`\ncorpus generated-links: ${(await warmPageCache(rg, linked)).toLocaleString('en')} files, ${linked}`)
    print(`\n== symbolic links (in process, interleaved; tool vs it = median of per-round tool/baseline)\n${CASE_HEADER}`)
    const linksContext = await loadLinksContext(rg, spillRoot)
    const links: CaseResult[] = []
    for (const search of [
      ...linksSearches(rg, main.name, main.root, main.patterns.medium, '**/*.ts', false),
      ...linksSearches(rg, 'generated-links', linked, LINK_NEEDLE, '**/*.js', true),
    ]) {
      const result = await linksCase(linksContext, search, rounds.glob)
      links.push(result)
      print(formatCase(result))
    }

    print(`\n== per-call fixed cost (processes; tool vs it = median of per-round differences)\n${CASE_HEADER}`)
    const start = await startCases(ctx, tiny, spillRoot, rounds.cli)
    report(results, start.warm)
    report(results, start.first)
    report(results, start.parts)
    const mcp = await mcpCase(ctx, tiny, spillRoot, rounds.mcp)
    report(results, mcp)

    print(
      `\n== peak RSS of the dsh process (MB), ${main.name}${many.length > 0 ? ' and the many-match trees' : ''}, one fresh process per case`,
    )
    const rss = await measurePeakRss(main, tiny, GLOB_PATTERNS, many, spillRoot, (name, mb) =>
      print(`    ${name.padEnd(32)} ${mb.toFixed(1).padStart(7)}`),
    )

    print(
      `\n== where the time goes, ${main.name}${many.length > 0 ? ' and many matches' : ''} (medians of 3 calls through a recording executor)`,
    )
    print(formatSplits(await splitToolTime(ctx, main, GLOB_PATTERNS, many, 3)))

    const checks = checkTargets((corpus, name) => results.get(`${corpus ?? main.name}/${name}`)!, rss, start, mcp, many.length > 0, links)
    if (anySize.size > 0) checks.push(...anySizeTargets(anySize))
    print(
      `\n== targets (${main.name}${quick ? '; --quick: indicative only, the targets are for the npm tree' : ''})\n${formatTargets(checks)}`,
    )
    // The in-process cases of the main corpus, each against its first baseline (rg itself, rg --files
    // unsorted, or rg's time to the cap); the CLI case compares in ms, not as a ratio.
    const ratios = [...results.values()].filter((r) => r.corpus === main.name).map((r) => ({ r, ratio: ratioOf(r, r.labels[1]!) }))
    const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a))
    print(
      `\nload average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    )
    print(`worst: ${main.name} ${worst.r.name} vs ${worst.r.labels[1]}`)
    print(`worst ratio vs rg: ${worst.ratio.toFixed(2)}`)
  } finally {
    rmSync(spillRoot, { recursive: true, force: true })
  }
}

function report(results: Map<string, CaseResult>, result: CaseResult): void {
  results.set(`${result.corpus}/${result.name}`, result)
  print(formatCase(result))
}

function printMachine(rg: string, quick: boolean): void {
  const cpus = os.cpus()
  const rgVersion = spawnSync(rg, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]
  print(
    `dsh bench${quick ? ' --quick' : ''}: ${cpus.length} x ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${os.release()}, node ${process.version}, ${rgVersion}`,
  )
  print(
    `load average at the start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
}
