// What changed under a directory since the index was built: one `find` walk of ctimes through the bash seam.
import type { BashExecutor } from '@dsh/core'
import { SKIPPED_DIRS } from './build.js'

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

/**
 * The walk's command: every entry under `dir` whose status changed after the mark (a write, a
 * rename, a chmod or a new name all set ctime, and a file added or removed sets its directory's), VCS
 * directories pruned as rg's searches skip them. GNU find: `-newerct` and `-printf`.
 */
export function freshnessCommand(dir: string, builtAtNs: bigint): string {
  const prune = SKIPPED_DIRS.map((name) => `-name ${quote(name)}`).join(' -o ')
  return `cd -- ${quote(dir)} && exec find . \\( ${prune} \\) -prune -o -newerct ${quote(findTime(builtAtNs))} -printf '%y %i %p\\0' </dev/null`
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

/** Runs the walk through the executor; a walk that fails, times out or overflows cannot vouch for the index. */
export async function changedSince(
  bash: BashExecutor,
  dir: string,
  builtAtNs: bigint,
  limits: { maxBytes: number; timeoutMs: number },
  signal: AbortSignal,
): Promise<FreshnessAnswer> {
  const chunks: Buffer[] = []
  const spec = await bash.resolve({
    command: freshnessCommand(dir, builtAtNs),
    timeoutMs: limits.timeoutMs,
    stdoutMaxBytes: limits.maxBytes,
    onStdoutOverflow: 'kill',
    signal,
    stdoutSink: (chunk) => chunks.push(Buffer.from(chunk)),
  })
  const run = await bash.run(spec)
  if (run.stop !== 'exit' || run.exitCode !== 0 || run.stdout.truncated) {
    const why =
      run.stop === 'overflow' || run.stdout.truncated ? 'too many changes' : run.stop !== 'exit' ? run.stop : run.stderr.text.trim()
    return { ok: false, why: `the change walk did not finish (${why || `exit ${run.exitCode}`})` }
  }
  return { ok: true, changed: parseChanged(Buffer.concat(chunks)) }
}
