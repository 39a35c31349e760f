// What changed under a directory since the index was built: a `find` walk of ctimes through the bash seam, whole or split in parts.
import type { BashExecutor } from '@dsh/core'
import { SKIPPED_DIRS } from './build.js'
import type { WalkPart } from './walk-split.js'

/**
 * The walk's limits: it stats every entry once (a second per ~300,000 on the reference machine; the
 * timeout is room), and find's output is about 20 entries a KiB.
 */
export const CHANGE_WALK_LIMITS = { timeoutMs: 60_000, maxBytes: 16 * 1024 * 1024 } as const

/** A file or directory whose ctime is later than the build's clock mark. */
export interface Changed {
  /** 'f' file, 'd' directory, 'l' link, or find's other letters. */
  type: string
  inode: number
  /** The path from the walked directory, '/'-separated, raw bytes as latin1; '' is the directory itself. */
  rel: string
}

/** The walk's answer: what changed, or why it could not tell. */
export type FreshnessAnswer = { ok: true; changed: Changed[] } | { ok: false; why: string }

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`
}

/** `find`'s `-newerct` argument for a time in nanoseconds since the epoch. */
export function findTime(ns: bigint): string {
  const seconds = ns / 1_000_000_000n
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, '0')
  return `@${seconds}.${fraction}`
}

/** find's tests and actions after its start points: VCS directories pruned, each changed entry printed. */
function findTail(builtAtNs: bigint): string {
  const prune = SKIPPED_DIRS.map((name) => `-name ${quote(name)}`).join(' -o ')
  return `\\( ${prune} \\) -prune -o -newerct ${quote(findTime(builtAtNs))} -printf '%y %i %p\\0'`
}

/**
 * The walk's command: every entry under `dir` whose status changed after the mark (a write, a
 * rename, a chmod or a new name all set ctime, and a file added or removed sets its directory's), VCS
 * directories pruned as rg's searches skip them. GNU find: `-newerct` and `-printf`.
 */
export function freshnessCommand(dir: string, builtAtNs: bigint): string {
  return `cd -- ${quote(dir)} && exec find . ${findTail(builtAtNs)} </dev/null`
}

/**
 * One part of a split walk (`splitWalk`): its whole subtrees in one find, then each spine's find with
 * the subdirectories other parts walk pruned by path. A start point gone since the build is skipped:
 * its parent's ctime changed, and the part that walks the parent prints it.
 */
export function partCommand(dir: string, builtAtNs: bigint, part: WalkPart): string {
  const start = (rel: string) => (rel === '' ? '.' : `./${rel}`)
  const lines = [`cd -- ${quote(dir)} || exit 2`]
  if (part.whole.length > 0) {
    lines.push(`set --`)
    lines.push(`for d in ${part.whole.map((rel) => quote(start(rel))).join(' ')}; do if [ -d "$d" ]; then set -- "$@" "$d"; fi; done`)
    lines.push(`if [ "$#" -gt 0 ]; then find "$@" ${findTail(builtAtNs)} </dev/null || exit; fi`)
  }
  for (const { rel, pruned } of part.spines) {
    const paths = pruned.map((child) => `-path ${quote(start(child))}`).join(' -o ')
    lines.push(
      `if [ -d ${quote(start(rel))} ]; then find ${quote(start(rel))} \\( ${paths} \\) -prune -o ${findTail(builtAtNs)} </dev/null || exit; fi`,
    )
  }
  return lines.join('\n')
}

/** Parses find's `%y %i %p\0` records. */
export function parseChanged(bytes: Buffer): Changed[] {
  const out: Changed[] = []
  const text = bytes.toString('latin1')
  for (const record of text.split('\0')) {
    if (record === '') continue
    const first = record.indexOf(' ')
    const second = record.indexOf(' ', first + 1)
    const path = record.slice(second + 1)
    out.push({
      type: record.slice(0, first),
      inode: Number(record.slice(first + 1, second)),
      rel: path === '.' ? '' : path.startsWith('./') ? path.slice(2) : path,
    })
  }
  return out
}

/**
 * Runs the walk through the executor: one find, or with `parts` (`splitWalk`) one script a part, all
 * at once, so the stats run on every core. A walk that fails, times out or overflows (any part of it)
 * cannot vouch for the index.
 */
export async function changedSince(
  bash: BashExecutor,
  dir: string,
  builtAtNs: bigint,
  limits: { maxBytes: number; timeoutMs: number },
  signal: AbortSignal,
  parts?: readonly WalkPart[],
): Promise<FreshnessAnswer> {
  const commands = parts === undefined ? [freshnessCommand(dir, builtAtNs)] : parts.map((part) => partCommand(dir, builtAtNs, part))
  const walks = await Promise.all(
    commands.map(async (command) => {
      const chunks: Buffer[] = []
      const spec = await bash.resolve({
        command,
        timeoutMs: limits.timeoutMs,
        // The output's cap is the walk's, shared by its parts.
        stdoutMaxBytes: Math.ceil(limits.maxBytes / commands.length),
        onStdoutOverflow: 'kill',
        signal,
        stdoutSink: (chunk) => chunks.push(Buffer.from(chunk)),
      })
      return { run: await bash.run(spec), chunks }
    }),
  )
  const changed: Changed[] = []
  for (const { run, chunks } of walks) {
    if (run.stop !== 'exit' || run.exitCode !== 0 || run.stdout.truncated) {
      const why =
        run.stop === 'overflow' || run.stdout.truncated ? 'too many changes' : run.stop !== 'exit' ? run.stop : run.stderr.text.trim()
      return { ok: false, why: `the change walk did not finish (${why || `exit ${run.exitCode}`})` }
    }
    for (const entry of parseChanged(Buffer.concat(chunks))) changed.push(entry)
  }
  return { ok: true, changed }
}
