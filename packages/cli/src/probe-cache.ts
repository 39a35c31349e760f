// The probe cache dsh keeps (docs/design.md#the-probe-cache): tool-fs-search's joint probe answer,
// reused while every file it depends on has the same stat as when it was recorded, in this process's
// memory and in a file in the user's private socket directory.
import { lstatSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { ProbeCache } from '@dsh/tool-fs-search'

/** What `createProbeCache` takes. */
export interface ProbeCacheOptions {
  /**
   * A file that keeps the cache across processes, in a directory only this user can enter. It is read
   * only when it is a regular file of this uid that no one else may read or write, and whole; anything
   * else (missing, corrupt, foreign) is ignored and replaced by the next answer recorded.
   */
  file?: string
}

// The file's first field: another format, or another version of this one, is not read.
const FORMAT = 'dsh-probe-cache-1'
// Answers kept: one per rg candidate list and executor environment in use; a few dozen is plenty.
const MAX_ENTRIES = 32
// A few dozen answers of a few KB each (an answer and the stat of each file it depends on).
const MAX_FILE_BYTES = 1 << 20

/** A recorded answer and the files it depends on, each with its signature then. */
interface Entry {
  answer: string
  files: Array<[string, string]>
}

/** A probe cache in this process's memory, and in `options.file` when given (read once, at the first lookup). */
export function createProbeCache(options: ProbeCacheOptions = {}): ProbeCache {
  let entries: Map<string, Entry> | undefined
  const load = (): Map<string, Entry> => (entries ??= new Map(options.file === undefined ? [] : readCacheFile(options.file)))
  return {
    get(key) {
      const known = load().get(key)
      return known?.files.every(([file, signature]) => fileSignature(file) === signature) === true ? known.answer : undefined
    },
    set(key, answer, files) {
      const all = load()
      all.delete(key)
      all.set(key, { answer, files: files.map((file) => [file, fileSignature(file)]) })
      for (const oldest of [...all.keys()].slice(0, Math.max(0, all.size - MAX_ENTRIES))) all.delete(oldest)
      if (options.file !== undefined) writeCacheFile(options.file, all)
    },
  }
}

/**
 * What a file is now, as far as a probe's answer goes: its identity (device and inode), type and
 * permissions, owner, size and times (a replaced, rewritten or chmod-ed binary changes one of them);
 * `-` for no file there, `!` and the error code when it cannot be looked at.
 */
export function fileSignature(file: string): string {
  try {
    const info = statSync(file, { throwIfNoEntry: false })
    if (info === undefined) return '-'
    return [info.dev, info.ino, info.mode, info.uid, info.gid, info.size, info.mtimeMs, info.ctimeMs].join(':')
  } catch (error) {
    return `!${(error as NodeJS.ErrnoException).code}`
  }
}

/** The entries of a cache file this user alone owns and can write, whole; none for anything else. */
export function readCacheFile(file: string, uid = process.getuid?.()): Array<[string, Entry]> {
  try {
    const info = lstatSync(file)
    if (!info.isFile() || info.uid !== uid || (info.mode & 0o077) !== 0 || info.size > MAX_FILE_BYTES) return []
    return readEntries(JSON.parse(readFileSync(file, 'utf8'))) ?? []
  } catch {
    return [] // missing, unreadable, or not JSON
  }
}

/** The file's entries, or undefined when any part of it is not as written: then none is trusted. */
function readEntries(parsed: unknown): Array<[string, Entry]> | undefined {
  if (!Array.isArray(parsed) || parsed[0] !== FORMAT || !Array.isArray(parsed[1])) return undefined
  const text = (value: unknown): value is string => typeof value === 'string'
  const read: Array<[string, Entry]> = []
  for (const item of parsed[1] as unknown[]) {
    if (!Array.isArray(item) || item.length !== 3) return undefined
    const [key, answer, files] = item as unknown[]
    if (!text(key) || !text(answer) || !Array.isArray(files)) return undefined
    const pairs = files as unknown[]
    if (!pairs.every((pair) => Array.isArray(pair) && pair.length === 2 && text(pair[0]) && path.isAbsolute(pair[0]) && text(pair[1])))
      return undefined
    read.push([key, { answer, files: pairs as Array<[string, string]> }])
  }
  return read
}

/** Writes the entries beside `file` (0600) and renames them over it: a reader sees the old file or the new one, whole. */
function writeCacheFile(file: string, entries: ReadonlyMap<string, Entry>): void {
  const temporary = `${file}.${process.pid}.tmp`
  const body = JSON.stringify([FORMAT, [...entries].map(([key, { answer, files }]) => [key, answer, files])])
  try {
    writeFileSync(temporary, body, { mode: 0o600, flag: 'wx' })
    renameSync(temporary, file)
  } catch {
    // Not kept on disk this time (a full disk, a directory gone): this process still has it in memory.
    try {
      unlinkSync(temporary)
    } catch {
      // never written
    }
  }
}
