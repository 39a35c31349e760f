// Builds a tree's index: walk every file but VCS directories and links, key each one's trigrams, write atomically.
import { open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { LocalIndexSettings } from './config.js'
import { IndexError, throwIfCancelled, tooLarge } from './errors.js'
import { encodeIndex, FILE_ALWAYS, UNREAD_DIR } from './format.js'
import { keyTree, PathFeed, type KeyOptions } from './key-pool.js'
import { ensurePrivateDir, INDEX_FILE, treeDir, UPDATE_FILE } from './location.js'
import { mergeSegments } from './postings.js'

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

/** A file as found by the walk. */
export interface Found {
  rel: string
  path: Buffer
}

/**
 * Lists every file under `start` (from the root, '/'-separated; `''` the root, a real path): hidden
 * ones and ignored ones too, so the index serves grep (which honours ignore files) and glob (which
 * does not) alike; not VCS directories, and not links, which rg reaches only when it follows them (a
 * search that does reads the whole tree). Each directory listed goes into `dirs` with its inode.
 * Stops, throwing INDEX_CANCELLED, at the next directory once `signal` is aborted.
 */
export async function walk(
  root: string,
  start: string,
  files: { push(file: Found): void },
  dirs: { push(dir: [string, number]): void },
  signal?: AbortSignal,
): Promise<void> {
  // The root is text; paths from it are raw bytes, kept as latin1.
  const path = Buffer.concat([Buffer.from(root), Buffer.from(start === '' ? '' : `/${start}`, 'latin1')])
  const pending: Array<{ rel: string; path: Buffer }> = [{ rel: start, path }]
  while (pending.length > 0) {
    throwIfCancelled(signal)
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
export async function clockMark(dir: string): Promise<bigint> {
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
 * Writes an index file's parts (each by the time the one after the next is pulled) to a temporary
 * file beside `target` (private, synced) and renames it over `target`: a reader meanwhile opens the
 * old file or none, and a killed write leaves only the temporary file, which the next build or update
 * removes. A write that fails or is cancelled (`signal`, checked at each part and before the rename)
 * removes it itself. Returns the written file's inode.
 */
export async function writeAtomically(target: string, parts: Iterable<Uint8Array>, signal?: AbortSignal): Promise<number> {
  const dir = dirname(target)
  for (const name of await readdir(dir)) if (name.startsWith(`${basename(target)}.tmp-`)) await rm(join(dir, name), { force: true })
  const temp = `${target}.tmp-${process.pid}-${Date.now()}`
  const handle = await open(temp, 'wx', 0o600)
  let inode: number
  try {
    // Each part is written while the next is made (and hashed): one write in flight, at its place.
    let at = 0
    let writing: Promise<unknown> = Promise.resolve()
    for (const p of parts) {
      throwIfCancelled(signal)
      const write = handle.write(p, 0, p.length, at)
      // Awaited below; marked handled meanwhile, in case the write before it fails first.
      write.catch(() => undefined)
      at += p.length
      await writing
      writing = write
    }
    await writing
    await handle.sync()
    inode = (await handle.stat()).ino
    throwIfCancelled(signal)
  } catch (error) {
    await handle.close()
    await rm(temp, { force: true })
    throw error
  }
  await handle.close()
  await rename(temp, target)
  return inode
}

/**
 * Builds the index of the tree at `root` into the index directory, replacing the one there by an
 * atomic rename: a search meanwhile reads the old index or none, and a killed build leaves only a
 * temporary file the next build removes. Once `signal` is aborted the build stops (INDEX_CANCELLED)
 * at its next directory, chunk or write, and the index is as it was.
 */
export function buildIndex(
  settings: LocalIndexSettings,
  root: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<BuildReport> {
  return buildIndexWith(settings, root, { signal: options.signal })
}

/** `buildIndex` with the keying's seams set (small chunks and segments, another worker entry): for tests. */
export async function buildIndexWith(
  settings: LocalIndexSettings,
  root: string,
  { signal, ...seams }: Pick<KeyOptions, 'chunkFiles' | 'segmentPairs' | 'workerEntry' | 'signal'>,
): Promise<BuildReport> {
  const started = Date.now()
  const info = await stat(root).catch((error: unknown) => {
    throw new IndexError('INDEX_BUILD_FAILED', `cannot index ${root}: ${(error as Error).message}`, { cause: error })
  })
  if (!info.isDirectory()) throw new IndexError('INDEX_NOT_A_DIRECTORY', `cannot index ${root}: not a directory`)
  await ensurePrivateDir(settings.dir)
  const dir = treeDir(settings.dir, root)
  await ensurePrivateDir(dir)
  const builtAtNs = await clockMark(dir)
  const found: Found[] = []
  const dirs: Array<[string, number]> = []
  // The files are keyed as the walk finds them.
  const feed = new PathFeed()
  const walking = walk(
    root,
    '',
    {
      push: (file) => {
        found.push(file)
        feed.push(file.path)
      },
    },
    dirs,
    signal,
  ).finally(() => feed.end())
  // Both settled: a cancelled walk returns only once the keying has stopped its workers too.
  const [walked, keyed] = await Promise.allSettled([
    walking,
    keyTree(feed, {
      fileMaxBytes: settings.fileMaxBytes,
      indexMaxBytes: settings.indexMaxBytes,
      workers: settings.buildWorkers,
      signal,
      ...seams,
    }),
  ])
  if (walked.status === 'rejected') throw walked.reason
  if (keyed.status === 'rejected') throw keyed.reason
  const { flags, times, contentBytes, segments } = keyed.value
  const merged = mergeSegments(segments, found.length)
  const { bytes: indexBytes, parts } = encodeIndex({
    header: {
      root,
      builtAtNs: builtAtNs.toString(),
      covers: 'every file under root, hidden and ignored ones too, except VCS directories and symbolic links',
    },
    files: found.map((f) => f.rel),
    fileFlags: flags,
    fileTimes: times,
    dirs,
    ...merged,
  })
  if (indexBytes > settings.indexMaxBytes) tooLarge(settings.indexMaxBytes)
  const target = join(dir, INDEX_FILE)
  await writeAtomically(target, parts, signal)
  // An update of the index replaced names another base, so searches would not read it; a rebuild removes it.
  await rm(join(dir, UPDATE_FILE), { force: true })
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
