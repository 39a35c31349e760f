// Builds a tree's index: walk every file but VCS directories and links, key each one's trigrams, write atomically.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { LocalIndexSettings } from './config.js'
import { IndexError } from './errors.js'
import { encodeIndex, FILE_ALWAYS, FILE_INDEXED, UNREAD_DIR } from './format.js'
import { ensurePrivateDir, INDEX_FILE, treeDir } from './location.js'
import { PostingsBuilder, tooLarge } from './postings.js'
import { TrigramCollector } from './trigrams.js'

/**
 * Directories the index never enters: rg's searches never do either (tool-fs-search leaves out these
 * VCS directories with `--glob=!NAME` at any depth), so nothing in them can be a candidate.
 */
export const SKIPPED_DIRS = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'] as const

/** What a build reports. */
export interface BuildReport {
  root: string
  indexPath: string
  files: number
  /** Files every search reads: too large, unreadable, or not keyed as rg reads them. */
  alwaysRead: number
  contentBytes: number
  indexBytes: number
  trigrams: number
  elapsedMs: number
}

// The main loop yields this often while it reads and keys files, so a warm server running the build
// still answers its other calls.
const YIELD_EVERY_MS = 20

/** A file as found by the walk. */
interface Found {
  rel: string
  path: Buffer
}

/**
 * Lists every file under `root` (its real path): hidden ones and ignored ones too, so the index
 * serves grep (which honours ignore files) and glob (which does not) alike; not VCS directories, and
 * not links, which rg reaches only when it follows them (a search that does reads the whole tree).
 */
async function walk(root: string, files: Found[], dirs: Array<[string, number]>): Promise<void> {
  const rootBytes = Buffer.from(root)
  const pending: Array<{ rel: string; path: Buffer }> = [{ rel: '', path: rootBytes }]
  while (pending.length > 0) {
    const dir = pending.pop()!
    let entries
    try {
      const info = await stat(dir.path, { bigint: true })
      entries = await readdir(dir.path, { withFileTypes: true, encoding: 'buffer' })
      dirs.push([dir.rel, Number(info.ino)])
    } catch {
      // rg cannot list it now either; every search reads it whole, in case it can later.
      dirs.push([dir.rel, UNREAD_DIR])
      continue
    }
    for (const entry of entries) {
      const name = entry.name.toString('latin1')
      const rel = dir.rel === '' ? name : `${dir.rel}/${name}`
      const path = Buffer.concat([dir.path, Buffer.from('/'), entry.name])
      if (entry.isDirectory()) {
        if (!(SKIPPED_DIRS as readonly string[]).includes(name)) pending.push({ rel, path })
      } else if (entry.isFile() && !(SKIPPED_DIRS as readonly string[]).includes(name)) {
        files.push({ rel, path })
      }
    }
  }
}

/**
 * The file system's clock now, as a file's ctime records it; returns once that clock has moved past
 * the mark, so a file changed after the return has a later ctime than the mark (a coarse clock ticks
 * every few milliseconds, and a change within the mark's tick would otherwise look older).
 */
async function clockMark(dir: string): Promise<bigint> {
  const probe = join(dir, `clock-${process.pid}`)
  await writeFile(probe, '', { mode: 0o600 })
  const mark = (await stat(probe, { bigint: true })).ctimeNs
  let now: bigint
  do {
    await new Promise((resolve) => setTimeout(resolve, 1))
    await writeFile(probe, 'x', { mode: 0o600 })
    now = (await stat(probe, { bigint: true })).ctimeNs
  } while (now <= mark)
  await rm(probe, { force: true })
  return mark
}

/**
 * Reads a regular file the walk found into `scratch`, synchronously (an open, a stat, a read and a
 * close a file: the promise API costs more than the work), without following a link or waiting on a
 * FIFO that replaced it. Its length; `{ scratch }`, a larger buffer to read it again into, when it does
 * not fit; undefined when it cannot be keyed: gone, unreadable, not a regular file now, or larger than
 * `maxBytes` (every search reads it; rg will say why itself if it cannot).
 */
export function readForIndex(path: Buffer, maxBytes: number, scratch: Buffer): number | { scratch: Buffer } | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile() || info.size > maxBytes) return undefined
    // One byte more than its size: a file that grew since is read in full, from a larger buffer.
    if (info.size >= scratch.length) return { scratch: Buffer.alloc(Math.max(info.size + 1, scratch.length * 2)) }
    let length = 0
    for (;;) {
      const n = readSync(fd, scratch, length, scratch.length - length, null)
      if (n === 0) return length
      length += n
      if (length === scratch.length) return length > maxBytes ? undefined : { scratch: Buffer.alloc(scratch.length * 2) }
    }
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

function alwaysRead(bytes: Buffer): boolean {
  // rg decodes a file that starts with a UTF-16 byte-order mark; its trigrams would be of other bytes.
  return bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
}

/**
 * Builds the index of the tree at `root` into the index directory, replacing the one there by an
 * atomic rename: a search meanwhile reads the old index or none, and a killed build leaves only a
 * temporary file the next build removes.
 */
export async function buildIndex(settings: LocalIndexSettings, root: string): Promise<BuildReport> {
  const started = Date.now()
  const info = await stat(root).catch((error: unknown) => {
    throw new IndexError('INDEX_BUILD_FAILED', `cannot index ${root}: ${(error as Error).message}`, { cause: error })
  })
  if (!info.isDirectory()) throw new IndexError('INDEX_NOT_A_DIRECTORY', `cannot index ${root}: not a directory`)
  await ensurePrivateDir(settings.dir)
  const dir = treeDir(settings.dir, root)
  await ensurePrivateDir(dir)
  for (const name of await readdir(dir)) if (name.startsWith(`${INDEX_FILE}.tmp-`)) await rm(join(dir, name), { force: true })
  const builtAtNs = await clockMark(dir)
  const found: Found[] = []
  const dirs: Array<[string, number]> = []
  await walk(root, found, dirs)
  const collector = new TrigramCollector()
  const postings = new PostingsBuilder(settings.indexMaxBytes)
  const flags = new Uint8Array(found.length)
  let contentBytes = 0
  let scratch: Buffer = Buffer.alloc(1 << 20)
  let yielded = performance.now()
  for (let id = 0; id < found.length; id++) {
    if (performance.now() - yielded > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      yielded = performance.now()
    }
    const path = found[id]!.path
    let size = readForIndex(path, settings.fileMaxBytes, scratch)
    while (typeof size === 'object') {
      scratch = size.scratch
      size = readForIndex(path, settings.fileMaxBytes, scratch)
    }
    if (size === undefined) {
      flags[id] = FILE_ALWAYS
      continue
    }
    const bytes = scratch.subarray(0, size)
    if (alwaysRead(bytes)) {
      flags[id] = FILE_ALWAYS
      continue
    }
    flags[id] = FILE_INDEXED
    contentBytes += size
    collector.collect(id, bytes, (key) => postings.add(key, id))
  }
  const merged = postings.merge()
  const parts = encodeIndex({
    header: {
      root,
      builtAtNs: builtAtNs.toString(),
      covers: 'every file under root, hidden and ignored ones too, except VCS directories and symbolic links',
    },
    files: found.map((f) => f.rel),
    fileFlags: flags,
    dirs,
    ...merged,
  })
  const indexBytes = parts.reduce((n, p) => n + p.length, 0)
  if (indexBytes > settings.indexMaxBytes) tooLarge(settings.indexMaxBytes)
  const target = join(dir, INDEX_FILE)
  const temp = `${target}.tmp-${process.pid}-${Date.now()}`
  const handle = await open(temp, 'wx', 0o600)
  try {
    for (const p of parts) await handle.write(p)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temp, target)
  return {
    root,
    indexPath: target,
    files: found.length,
    alwaysRead: flags.reduce((n, f) => n + (f === FILE_ALWAYS ? 1 : 0), 0),
    contentBytes,
    indexBytes,
    trigrams: merged.keys.length,
    elapsedMs: Date.now() - started,
  }
}
