import path from 'node:path'
import type { Harness } from '@dsh/core'
import { REPO_ROOT } from './build.js'
import { callTool, type SeamRecord } from './harness.js'
import { runInterleaved, type Contender, type Rounds } from './measure.js'
import { drainProcess, elapsedMs } from './processes.js'
import { savedInNode } from './any-size.js'
// The tool's own rg builder and VCS excludes, so a baseline runs rg as the tool does and lists the files it lists.
import { rgArgv } from '../packages/tool-fs-search/src/engine/rg-command.js'
import { VCS_EXCLUDES } from '../packages/tool-fs-search/src/engine/vcs.js'

/** What every case needs: the rg binary the tool itself runs, both harnesses, the raw-output cap. */
export interface BenchContext {
  rg: string
  harness: Harness
  recording: { harness: Harness; searchOf: (call: () => Promise<unknown>) => Promise<SeamRecord>; totalRunMs: () => number }
  rawOutputMaxBytes: number
}

/** A search tree and the patterns sized for it. */
export interface Corpus {
  name: string
  root: string
  patterns: { narrow: string; medium: string; broad: string; overflow: string }
}

/** One measured case: ms per contender (the tool first) per round, and what was searched. */
export interface CaseResult {
  corpus: string
  name: string
  detail: string
  labels: string[]
  times: number[][]
}

/** Grep through the registry vs the baseline rg, its stdout read and discarded. */
export async function grepCase(
  ctx: BenchContext,
  corpus: Corpus,
  size: 'narrow' | 'medium' | 'broad',
  rounds: Rounds,
): Promise<CaseResult> {
  return grepPatternCase(ctx, { corpus: corpus.name, root: corpus.root, name: `grep ${size}`, pattern: corpus.patterns[size] }, rounds)
}

/** One grep search to compare: where, under which case name, for what. */
export interface GrepSearch {
  corpus: string
  root: string
  name: string
  pattern: string
}

/** `grepCase` for any pattern: the many-match cases run through it too. */
export async function grepPatternCase(ctx: BenchContext, search: GrepSearch, rounds: Rounds): Promise<CaseResult> {
  const { pattern, root } = search
  const argv = rgArgv({ rg: ctx.rg, flags: ['--no-heading', '--with-filename', '-n'], pattern, paths: [root] })
  let toolTotal = 0
  let rgOut = { lines: 0, bytes: 0 }
  const contenders: Contender[] = [
    timed('tool', async () => {
      const result = await callTool(ctx.harness, 'grep', { pattern }, root)
      toolTotal = (result.value as { total: number }).total
    }),
    {
      label: 'rg',
      run: async () => {
        const run = await drainProcess(argv)
        rgOut = { lines: run.stdoutLines, bytes: run.stdoutBytes }
        return run.ms
      },
    },
  ]
  const times = await runInterleaved(contenders, rounds)
  const detail = `\`${pattern}\`: tool ${toolTotal.toLocaleString('en')} matches; rg ${rgOut.lines.toLocaleString('en')} lines, ${mb(rgOut.bytes)}`
  return { corpus: search.corpus, name: search.name, detail, labels: ['tool', 'rg'], times }
}

/**
 * Grep whose raw output passes `rawOutputMaxBytes`, so that it streams into the spill
 * (docs/design.md#results-bigger-than-memory), vs the tool's own script (replayed from the recording
 * executor) read to its end and discarded: what answering with the page, the true total and the
 * complete spill costs over producing the output at all.
 */
export async function overflowCase(ctx: BenchContext, corpus: Corpus, rounds: Rounds): Promise<CaseResult> {
  const pattern = corpus.patterns.overflow
  const { spec } = await ctx.recording.searchOf(() => callTool(ctx.recording.harness, 'grep', { pattern }, corpus.root))
  const contenders: Contender[] = [
    timed('tool', () => callTool(ctx.harness, 'grep', { pattern }, corpus.root)),
    {
      label: 'its script, drained',
      run: async () => (await drainProcess(['/bin/bash', '-c', spec.command], { cwd: spec.workdir, env: spec.env, ownSession: true })).ms,
    },
    // Its records written as the spill's rows in rg's order, nothing checked, escaped or ordered: what
    // a plain Node tool that keeps the formatted result pays (bench/any-size.ts).
    { label: 'its script, rows in Node', run: () => savedInNode(spec.command, spec.workdir, 'rows') },
  ]
  const times = await runInterleaved(contenders, rounds)
  return {
    corpus: corpus.name,
    name: 'grep overflow',
    detail: `\`${pattern}\`: past the ${mb(ctx.rawOutputMaxBytes)} cap, streamed into the spill`,
    labels: contenders.map((c) => c.label),
    times,
  }
}

/**
 * Glob through the registry vs rg listing the same files unsorted and sorted (what peers run), and vs
 * the tool's own script (replayed from the recording executor) with its output discarded: the rg,
 * mtime helper and dd pipeline a glob cannot do without, so tool / script is the tool's own share.
 */
export async function globCase(ctx: BenchContext, corpus: Corpus, pattern: string, rounds: Rounds): Promise<CaseResult> {
  const { spec } = await ctx.recording.searchOf(() => callTool(ctx.recording.harness, 'glob', { pattern }, corpus.root))
  // The tool's listing flags (src/engine/glob/command.ts buildGlobCommand), without its mtime pipeline and sort.
  const listFlags = [
    '--files',
    '--null',
    '--no-ignore',
    '--hidden',
    '--color=never',
    `--glob=${pattern}`,
    ...VCS_EXCLUDES.map((d) => `--glob=!${d}`),
  ]
  const list = rgArgv({ rg: ctx.rg, flags: listFlags })
  const sorted = rgArgv({ rg: ctx.rg, flags: [...listFlags, '--sortr=modified'] })
  let files = 0
  const contenders: Contender[] = [
    timed('tool', async () => {
      const result = await callTool(ctx.harness, 'glob', { pattern }, corpus.root)
      files = (result.value as { total: number }).total
    }),
    { label: 'rg --files', run: async () => (await drainProcess(list, { cwd: corpus.root })).ms },
    { label: 'rg --files --sortr=modified', run: async () => (await drainProcess(sorted, { cwd: corpus.root })).ms },
    {
      label: 'its script (bash -c)',
      run: async () => (await drainProcess(['/bin/bash', '-c', spec.command], { cwd: spec.workdir, env: spec.env })).ms,
    },
  ]
  const times = await runInterleaved(contenders, rounds)
  return {
    corpus: corpus.name,
    name: `glob ${pattern}`,
    detail: `${files.toLocaleString('en')} files`,
    labels: contenders.map((c) => c.label),
    times,
  }
}

/** `dsh grep` as a process vs rg as a process: what a person who types the command waits for. */
export async function cliGrepCase(
  ctx: BenchContext,
  search: GrepSearch,
  spillRoot: string,
  rounds: Rounds,
  detail: string,
  others: readonly Contender[] = [],
): Promise<CaseResult> {
  const dsh = [path.join(REPO_ROOT, 'node_modules', '.bin', 'dsh'), 'grep', search.pattern, '--cwd', search.root, '--spill-dir', spillRoot]
  const rg = rgArgv({ rg: ctx.rg, flags: ['--no-heading', '--with-filename', '-n'], pattern: search.pattern, paths: [search.root] })
  const contenders: Contender[] = [
    { label: 'dsh grep', run: async () => (await drainProcess(dsh)).ms },
    { label: 'rg', run: async () => (await drainProcess(rg)).ms },
    ...others,
  ]
  const times = await runInterleaved(contenders, rounds)
  return { corpus: search.corpus, name: search.name, detail, labels: contenders.map((c) => c.label), times }
}

/** A contender timed in this process: the tool call, from the registry's `execute` to its result. */
function timed(label: string, call: () => Promise<unknown>): Contender {
  return {
    label,
    run: async () => {
      const started = process.hrtime.bigint()
      await call()
      return elapsedMs(started)
    },
  }
}

/** Bytes as MB (10^6), one decimal. */
function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}
