// Results of any size: a grep of 5,000,000 matches (over 200 MB of rg's output), glob `**/*` over
// 100,000 and 1,000,000 files, and a broad grep on the npm tree. Each is timed against rg piped into a
// reader that discards (the fair floor: someone must read the bytes), rg writing to /dev/null (the
// physical limit), for grep, rg saving its output to a file (what keeping the result costs) and, for
// glob, rg's own newest-first listing (what ordering by time costs rg itself), all started in a
// session of their own as dsh's shell is; beside the times, the dsh process's peak RSS and the bytes
// it saved.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Harness } from '@dsh/core'
import { runInterleaved, pairedRatio, type Contender, type Rounds } from './measure.js'
import { elapsedMs } from './processes.js'
import { dshPeakRssMb } from './rss.js'
import type { CaseResult } from './cases.js'
import type { TargetCheck } from './report.js'
// The tool's own rg builder and VCS excludes, so a baseline runs rg as the tool does.
import { rgCommand } from '../packages/tool-fs-search/src/engine/rg-command.js'
import { VCS_EXCLUDES } from '../packages/tool-fs-search/src/engine/vcs.js'
import { ddCommand, mtimeCommand, type MtimeLister } from '../packages/tool-fs-search/src/engine/glob/command.js'
import { buildMtimeProbeCommand, judgeMtimeAnswer } from '../packages/tool-fs-search/src/engine/probe/mtime-helper.js'

// Bump when a generator's output changes: the version is part of the cached folders' names.
const GENERATOR_VERSION = 1
const MTIME_BASE = 1_700_000_000

/** The 5M-match tree: 5,000 files of 1,000 lines, every line holding the needle once. */
export const HUGE_MATCH = { files: 5_000, linesPerFile: 1_000, pattern: 'needle' } as const

/**
 * 50 directories of 100 files of 1,000 short lines (`dNN/fNNN.txt`), every line a match: 5,000,000
 * matches, ~125 MB of text, ~225 MB of rg's `path:line:text` output.
 */
export function ensureHugeMatchTree(cacheDir: string): string {
  return ensureTree(cacheDir, `generated-5m-matches-v${GENERATOR_VERSION}`, (root) => {
    let g = 0
    for (let d = 0; d < HUGE_MATCH.files / 100; d++) {
      const dir = path.join(root, `d${String(d).padStart(2, '0')}`)
      mkdirSync(dir, { recursive: true })
      for (let f = 0; f < 100; f++) {
        const lines: string[] = []
        for (let l = 0; l < HUGE_MATCH.linesPerFile; l++, g++) lines.push(`let v${g % 9973} = ${HUGE_MATCH.pattern}(${l})`)
        writeFileSync(path.join(dir, `f${String(f).padStart(3, '0')}.txt`), `${lines.join('\n')}\n`)
      }
    }
  })
}

/**
 * `files` empty files, 1,000 to a directory (`dNNNN/fNNN.ts`), each with its own mtime in a shuffled
 * order, so glob's newest-first sort has real work: no directory's files arrive in time order.
 */
export function ensureFileTree(cacheDir: string, files: number): string {
  return ensureTree(cacheDir, `generated-${files / 1000}k-files-v${GENERATOR_VERSION}`, (root) => {
    for (let i = 0; i < files; i++) {
      const dir = path.join(root, `d${String(Math.floor(i / 1000)).padStart(4, '0')}`)
      if (i % 1000 === 0) mkdirSync(dir, { recursive: true })
      const file = path.join(dir, `f${String(i % 1000).padStart(3, '0')}.ts`)
      writeFileSync(file, '')
      // A multiplicative permutation of 0..files-1: deterministic, and far from the write order.
      const mtime = MTIME_BASE + ((i * 7_919) % files)
      utimesSync(file, mtime, mtime)
    }
  })
}

function ensureTree(cacheDir: string, name: string, write: (root: string) => void): string {
  const root = path.join(cacheDir, name)
  if (existsSync(root)) return root
  const partial = `${root}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  process.stdout.write(`bench: writing ${name} (once)\n`)
  write(partial)
  renameSync(partial, root)
  return root
}

/**
 * A shell command timed to its end, in a session of its own (`detached`), as dsh's executor starts
 * its shell: the baseline pays for the same scheduling, not only the same work.
 */
async function timeInSession(command: string, cwd: string): Promise<number> {
  const started = process.hrtime.bigint()
  const child = spawn('/bin/bash', ['-c', command], { cwd, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [exitCode] = (await once(child, 'close')) as [number | null]
  const ms = elapsedMs(started)
  if (exitCode !== 0) throw new Error(`${command} exited ${exitCode}: ${stderr.slice(-500)}`)
  return ms
}

/**
 * A command's stdout handed to `onChunk` in this process as it arrives, started as the executor
 * starts its shell (a session of its own), and `onEnd` run once it has ended: the time to then, and
 * the command's exit code.
 */
async function readInNode(
  command: string,
  cwd: string,
  onChunk: (chunk: Buffer) => void,
  onEnd: () => void = () => {},
): Promise<{ ms: number; exitCode: number | null }> {
  const started = process.hrtime.bigint()
  const child = spawn('/bin/bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'ignore'], detached: true })
  child.stdout.on('data', onChunk)
  const [exitCode] = (await once(child, 'close')) as [number | null]
  onEnd()
  return { ms: elapsedMs(started), exitCode }
}

/**
 * A command's stdout read in this process to its end, counting `separator` bytes and keeping
 * nothing: what reading the output costs Node at all.
 */
async function countInNode(command: string, cwd: string, separator: number): Promise<number> {
  let count = 0
  const { ms, exitCode } = await readInNode(command, cwd, (chunk) => {
    for (let at = chunk.indexOf(separator); at !== -1; at = chunk.indexOf(separator, at + 1)) count += 1
  })
  if (exitCode !== 0 || count === 0) throw new Error(`${command} exited ${exitCode} after ${count} records`)
  return ms
}

/**
 * A command's stdout read in this process and written whole to a new file in the temp directory, in
 * 1 MiB writes as spill-local gathers a streamed spill, then removed: what keeping every byte costs a
 * Node tool at all, before a record is parsed, ordered or formatted.
 */
export async function savedInNode(command: string, cwd: string, as: 'bytes' | 'rows'): Promise<number> {
  const file = path.join(os.tmpdir(), `dsh-bench-node-output-${process.pid}`)
  const fd = openSync(file, 'w', 0o600)
  const block = Buffer.allocUnsafe(1 << 20)
  let used = 0
  let saved = 0
  const writeBlock = (): void => {
    // A write may take less than it was given; the rest follows.
    for (let at = 0; at < used;) at += writeSync(fd, block, at, used - at)
    saved += used
    used = 0
  }
  const save = (bytes: Buffer, start = 0, end = bytes.length): void => {
    for (let at = start; at < end;) {
      const n = bytes.copy(block, used, at, end)
      used += n
      at += n
      if (used === block.length) writeBlock()
    }
  }
  try {
    const { ms, exitCode } = await readInNode(command, cwd, as === 'bytes' ? (chunk) => save(chunk) : rowsOf(save), writeBlock)
    if (exitCode !== 0 || saved === 0) throw new Error(`${command} exited ${exitCode} after ${saved} bytes`)
    return ms
  } finally {
    closeSync(fd)
    rmSync(file, { force: true })
  }
}

const LINE = Buffer.from('Line ')
const COLON_SPACE = Buffer.from(': ')
const NEWLINE = Buffer.from('\n')

/**
 * rg's grep records (`path NUL number : line LF`) as the spill writes them, handed to `save`: the
 * path on a line of its own when it changes (a blank line before all but the first), then a row
 * `Line N: text` a record. Nothing is checked, escaped, cut or ordered: the least a Node tool that
 * keeps the formatted result does with each byte. The `D` and NUL that grep's script prints first
 * (the searched path is a directory) are skipped, so they do not join the first record.
 */
function rowsOf(save: (bytes: Buffer, start?: number, end?: number) => void): (chunk: Buffer) => void {
  // The chunks of a record still open: joined once its newline comes, so a long line is copied once.
  let carry: Buffer[] = []
  let lastPath = Buffer.alloc(0)
  let started = false
  return (whole) => {
    let chunk = whole
    if (!started) {
      started = true
      if (chunk.length >= 2 && chunk[0] === 0x44 && chunk[1] === 0) chunk = chunk.subarray(2)
    }
    if (carry.length > 0 && !chunk.includes(0x0a)) {
      carry.push(chunk)
      return
    }
    const bytes = carry.length === 0 ? chunk : Buffer.concat([...carry, chunk])
    let at = 0
    for (let end = bytes.indexOf(0x0a, at); end !== -1; at = end + 1, end = bytes.indexOf(0x0a, at)) {
      const nul = bytes.indexOf(0, at)
      const colon = nul === -1 || nul > end ? -1 : bytes.indexOf(0x3a, nul)
      if (colon === -1 || colon > end) continue
      if (bytes.compare(lastPath, 0, lastPath.length, at, nul) !== 0) {
        if (lastPath.length > 0) save(NEWLINE)
        lastPath = Buffer.from(bytes.subarray(at, nul))
        save(bytes, at, nul)
        save(NEWLINE)
      }
      save(LINE)
      save(bytes, nul + 1, colon)
      save(COLON_SPACE)
      save(bytes, colon + 1, end + 1)
    }
    carry = at === bytes.length ? [] : [Buffer.from(bytes.subarray(at))]
  }
}

/** rg's output written to a new file beside the spills (the temp directory), timed, then removed. */
async function savedInSession(rg: string, cwd: string): Promise<number> {
  const file = path.join(os.tmpdir(), `dsh-bench-rg-output-${process.pid}`)
  try {
    return await timeInSession(`exec ${rg} >'${file}'`, cwd)
  } finally {
    rmSync(file, { force: true })
  }
}

/** One case: the tool call, the rg command it is measured against, and where both run. */
export interface AnySizeSearch {
  name: string
  root: string
  tool: 'grep' | 'glob'
  pattern: string
  /** rg's command, quoted for bash by the tool's own builder: the same search, printed as rg prints it. */
  rgCommand: string
  /**
   * What the tool's script prints, for the floor: for grep, rg's command with long lines previewed as
   * the tool's are; for glob, rg's list through
   * the mtime helper and dd, as the glob script runs them (a baseline without mtimes cannot sort).
   */
  scriptCommand: string
  /** For glob: rg's listing newest first (`--sortr=modified`), as a peer that sorts by time runs it. */
  rgSortedCommand?: string
}

/** What the tool answered in the last measured round, besides its time. */
export interface AnySizeOutcome {
  /** 'ok', or the error code of a failed call. */
  outcome: string
  total: number | undefined
  spillBytes: number | undefined
  peakRssMb: number | undefined
}

/**
 * The tool (in process, through the CLI's plugins), rg piped into `cat >/dev/null`, and rg writing to
 * /dev/null, interleaved; then one `dsh` process for its peak RSS. A failed call is timed like a
 * result: today's overflow error is a fast answer that says nothing, and the detail says so.
 */
export async function anySizeCase(
  harness: Harness,
  search: AnySizeSearch,
  rounds: Rounds,
): Promise<{ result: CaseResult; outcome: AnySizeOutcome }> {
  const outcome: AnySizeOutcome = { outcome: 'ok', total: undefined, spillBytes: undefined, peakRssMb: undefined }
  const contenders: Contender[] = [
    {
      label: 'tool',
      run: async () => {
        const started = process.hrtime.bigint()
        const result = await harness.registry.execute(
          search.tool,
          { pattern: search.pattern },
          { agent: { session: { header: { id: 'bench', cwd: search.root } } } },
        )
        const ms = elapsedMs(started)
        outcome.outcome = result.isError ? (result.errorCode ?? 'error') : 'ok'
        outcome.total = result.isError ? undefined : (result.value as { total: number }).total
        outcome.spillBytes = result.spilledTo === undefined ? undefined : statSync(result.spilledTo).size
        return ms
      },
    },
    { label: 'rg | cat >/dev/null', run: () => timeInSession(`${search.rgCommand} | cat >/dev/null`, search.root) },
    { label: 'rg >/dev/null', run: () => timeInSession(`exec ${search.rgCommand} >/dev/null`, search.root) },
    // What keeping the whole result costs at all: rg's output saved to a file, as a shell tool saves
    // it (each round's file removed after it). Writing new pages is not free on every machine.
    ...(search.tool === 'grep' ? [{ label: 'rg > file', run: () => savedInSession(search.rgCommand, search.root) }] : []),
    // The fair floor in Node: the tool's script read to its end by a reader that only counts
    // separators, started as the executor starts it; and the script into `cat`.
    { label: 'script | node count', run: () => countInNode(search.scriptCommand, search.root, search.tool === 'glob' ? 0 : 0x0a) },
    // And that reader keeping every byte on disk: the floor of a Node tool that saves the whole result;
    // and writing them as the spill's rows, in rg's order: the floor of one that saves it formatted.
    ...(search.tool === 'grep'
      ? [
          { label: 'script | node save', run: () => savedInNode(search.scriptCommand, search.root, 'bytes') },
          { label: 'script | node rows', run: () => savedInNode(search.scriptCommand, search.root, 'rows') },
        ]
      : []),
    ...(search.tool === 'glob'
      ? [
          { label: 'script | cat >/dev/null', run: () => timeInSession(`${search.scriptCommand} | cat >/dev/null`, search.root) },
          // rg's own newest-first listing (what a peer that sorts by time runs): it reads every file's
          // time too, so it shows what the order costs rg itself.
          {
            label: 'rg --sortr=modified | cat',
            run: () => timeInSession(`${search.rgSortedCommand} | cat >/dev/null`, search.root),
          },
        ]
      : []),
  ]
  const times = await runInterleaved(contenders, rounds)
  outcome.peakRssMb = await dshPeakRssMb([search.tool, search.pattern, '--cwd', search.root]).catch(() => undefined)
  const saved = outcome.spillBytes === undefined ? 'nothing saved' : `${(outcome.spillBytes / 1e6).toFixed(1)} MB saved`
  const answer = outcome.outcome === 'ok' ? `total ${outcome.total?.toLocaleString('en')}, ${saved}` : `${outcome.outcome}, ${saved}`
  const rss = outcome.peakRssMb === undefined ? 'peak RSS not reported' : `dsh peak RSS ${outcome.peakRssMb.toFixed(1)} MB`
  return {
    result: {
      corpus: 'any-size',
      name: search.name,
      detail: `\`${search.pattern}\`: ${answer}; ${rss}`,
      labels: contenders.map((c) => c.label),
      times,
    },
    outcome,
  }
}

/** The targets for results of any size: only an answer (not an error) can pass. */
export function anySizeTargets(cases: ReadonlyMap<string, { result: CaseResult; outcome: AnySizeOutcome }>): TargetCheck[] {
  const ratio = (name: string): number => {
    const { result, outcome } = cases.get(name)!
    // An error is no answer at any speed.
    return outcome.outcome === 'ok' ? pairedRatio(result.times[0]!, result.times[1]!) : Number.POSITIVE_INFINITY
  }
  // The peak of a process that gave up says nothing of one that answers.
  const rss = (name: string): number => {
    const { outcome } = cases.get(name)!
    return outcome.outcome === 'ok' ? (outcome.peakRssMb ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY
  }
  // The tool against its own script read by a Node reader that only counts: the tool's own work.
  const ownWork = (name: string): number => {
    const { result, outcome } = cases.get(name)!
    const script = result.labels.indexOf('script | node count')
    return outcome.outcome === 'ok' ? pairedRatio(result.times[0]!, result.times[script]!) : Number.POSITIVE_INFINITY
  }
  return [
    { target: 'grep 5M matches: tool / rg | cat', measured: ratio('grep 5M matches'), limit: 1.3, unit: 'x' },
    { target: 'peak RSS, dsh grep 5M matches', measured: rss('grep 5M matches'), limit: 120, unit: 'MB' },
    { target: 'glob **/* 1M files: tool / rg --files | cat', measured: ratio('glob 1M files'), limit: 1.7, unit: 'x' },
    { target: 'peak RSS, dsh glob 1M files', measured: rss('glob 1M files'), limit: 150, unit: 'MB' },
    { target: 'glob **/* 100k files: tool / rg --files | cat', measured: ratio('glob 100k files'), limit: 1.7, unit: 'x' },
    { target: 'glob **/* 1M files: tool / its script | node count', measured: ownWork('glob 1M files'), limit: 1.3, unit: 'x' },
    { target: 'glob **/* 100k files: tool / its script | node count', measured: ownWork('glob 100k files'), limit: 1.3, unit: 'x' },
  ]
}

/** The mtime helper glob's load-time probe chooses here (docs/design.md#glob-stats-on-every-core). */
function probedMtimeLister(): MtimeLister {
  const probe = spawnSync('/bin/sh', ['-c', buildMtimeProbeCommand()], { encoding: 'utf8' })
  const choice = judgeMtimeAnswer(probe.stdout, probe.status ?? 1)
  if (!choice.available) throw new Error(`bench: glob has no mtime helper here: ${choice.reason}`)
  return choice.chosen
}

/** The searches: 5M matches, glob over 100k and 1M files, and the npm tree's broad `function`. */
export function anySizeSearches(
  rg: string,
  roots: { hugeMatch: string; files100k: string; files1m: string; npmTree?: string },
): AnySizeSearch[] {
  // rg's records as the tool reads them: each path ends at a NUL (the same bytes as a `:` there).
  const grep = (pattern: string, flags: string[] = []): string =>
    rgCommand({ rg, flags: ['--null', '--no-heading', '--with-filename', '-n', ...flags], pattern, paths: ['.'] })
  const listing = ['--files', '--no-ignore', '--hidden', '--null', '--glob=**/*', ...VCS_EXCLUDES.map((d) => `--glob=!${d}`)]
  const glob = rgCommand({ rg, flags: listing })
  const rgSortedCommand = rgCommand({ rg, flags: [...listing, '--sortr=modified'] })
  // The names' times read by the helper the tool's probe chooses on this machine, as in its script.
  const lister = probedMtimeLister()
  const dd = lister.dd === undefined ? '' : ` | ${ddCommand(lister.dd)}`
  const globScript = `${glob} | ${mtimeCommand(lister)}${dd}`
  // The script previews long lines as the tool's does (`maxLineBytes`, 2,000 by default): on the npm
  // tree's minified files plain rg prints five times the bytes.
  const grepSearch = (pattern: string) => ({
    rgCommand: grep(pattern),
    scriptCommand: grep(pattern, ['--max-columns=2000', '--max-columns-preview']),
  })
  return [
    { name: 'grep 5M matches', root: roots.hugeMatch, tool: 'grep', pattern: HUGE_MATCH.pattern, ...grepSearch(HUGE_MATCH.pattern) },
    {
      name: 'glob 100k files',
      root: roots.files100k,
      tool: 'glob',
      pattern: '**/*',
      rgCommand: glob,
      scriptCommand: globScript,
      rgSortedCommand,
    },
    {
      name: 'glob 1M files',
      root: roots.files1m,
      tool: 'glob',
      pattern: '**/*',
      rgCommand: glob,
      scriptCommand: globScript,
      rgSortedCommand,
    },
    ...(roots.npmTree === undefined
      ? []
      : [
          {
            name: 'grep function (npm tree)',
            root: roots.npmTree,
            tool: 'grep' as const,
            pattern: 'function',
            ...grepSearch('function'),
          },
        ]),
  ]
}
