// Updates a tree's index without a rebuild: keys only what changed since its build into a small second file searches read beside it.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { BashExecutor } from '@dsh/core'
import { buildIndex, clockMark, SKIPPED_DIRS, walk, writeAtomically, type BuildReport, type Found } from './build.js'
import type { LocalIndexSettings } from './config.js'
import { throwIfCancelled, tooLarge } from './errors.js'
import { encodeIndex, FILE_ALWAYS, openIndexFile, UNREAD_DIR, type IndexData } from './format.js'
import { CHANGE_WALK_LIMITS, changedSince, type Changed } from './freshness.js'
import { keyTree, PathFeed } from './key-pool.js'
import { assertPrivate, INDEX_FILE, treeDir, UPDATE_FILE } from './location.js'
import { mergeSegments } from './postings.js'
import { ownFiles, splitWalk, WALK_PARTS } from './walk-split.js'

/** What `dsh index` did: built the index whole, or keyed what changed since its build. */
export type IndexReport =
  | (BuildReport & {
      kind: 'build'
      /** Why an index there was not updated; absent when there was none, or a rebuild was asked for. */
      why?: string
    })
  | (BuildReport & {
      kind: 'update'
      /** Files and directories changed since the build, keyed again. */
      changed: number
      /** How they were learned: `dsh index`'s walk, or a warm server's watcher (docs/design.md#a-warm-process-updates-its-index). */
      changesFrom: 'walk' | 'watcher'
      /** The index updated, and its size. */
      basePath: string
      baseBytes: number
    })

/**
 * Brings the index of the tree at `root` (its real path) up to date: when an index of this format
 * covers it, and no more than `changedMaxEntries` files and directories changed since its build, keys
 * only those (a changed directory's own files, a new or replaced one whole) into the update file
 * beside it, replacing the update there; otherwise, or with `rebuild`, builds the index whole.
 * Aborting `signal` (Ctrl-C) stops either with INDEX_CANCELLED, and the index is as it was.
 */
export async function updateIndex(
  settings: LocalIndexSettings,
  root: string,
  bash: BashExecutor,
  options: { rebuild?: boolean; signal?: AbortSignal } = {},
): Promise<IndexReport> {
  const started = Date.now()
  const dir = treeDir(settings.dir, root)
  const basePath = join(dir, INDEX_FILE)
  const build = async (why?: string): Promise<IndexReport> => ({
    kind: 'build',
    ...(why === undefined ? {} : { why }),
    ...(await buildIndex(settings, root, { signal: options.signal })),
  })
  const info = options.rebuild === true ? undefined : await stat(basePath).catch(() => undefined)
  if (info === undefined) return build()
  let base: IndexData & { close(): void }
  try {
    await assertPrivate(dir)
    await assertPrivate(basePath)
    // Not read through for its checksum: an update only names the checksum the index states, and a
    // search checks the index before it reads either (a damaged one is refused, its update with it).
    base = openIndexFile(basePath, { verify: false })
  } catch (error) {
    return build(`the index was refused: ${(error as Error).message}`)
  }
  try {
    if (base.header.root !== root) return build(`the index is of another tree (${base.header.root})`)
    const since = BigInt(base.header.builtAtNs)
    if (BigInt(Date.now()) * 1_000_000n < since) return build('the clock is earlier than the index build')
    const builtAtNs = await clockMark(dir)
    const signal = options.signal ?? new AbortController().signal
    const walked = await changedSince(bash, root, since, CHANGE_WALK_LIMITS, signal, splitWalk(ownFiles(base, ''), WALK_PARTS))
    // A walk stopped by Ctrl-C did not finish either, and must not start a build.
    throwIfCancelled(signal)
    if (!walked.ok) return build(walked.why)
    const written = await keyChanges(settings, { root, base, baseBytes: info.size, changed: walked.changed, builtAtNs, signal })
    if (written.kind === 'whole') return build(written.why)
    return {
      kind: 'update',
      changed: walked.changed.length,
      changesFrom: 'walk',
      basePath,
      baseBytes: info.size,
      root,
      indexPath: written.indexPath,
      files: written.files,
      alwaysRead: written.alwaysRead,
      contentBytes: written.contentBytes,
      indexBytes: written.indexBytes,
      trigrams: written.trigrams,
      elapsedMs: Date.now() - started,
    }
  } finally {
    base.close()
  }
}

/** What `keyChanges` did: wrote the update, or found it should build whole instead (and why). */
export type KeyedChanges =
  | { kind: 'whole'; why: string }
  | (Omit<BuildReport, 'elapsedMs'> & {
      kind: 'written'
      /** The directories it listed, with their inodes (`UNREAD_DIR` for one it could not). */
      dirs: ReadonlyArray<readonly [string, number]>
      /** The update file's inode as written: another writer's rename after it gives another. */
      inode: number
    })

/**
 * Keys the entries changed since the build of `base` (the tree's real path `root`; `changed` every
 * change since that build, from its root) into the update file beside it, with the clock mark
 * `builtAtNs`, taken before the changes were learned (docs/design.md#an-update-keys-what-changed).
 * `whole` when the index should be built whole instead: its root replaced, or too much to key.
 */
export async function keyChanges(
  settings: LocalIndexSettings,
  {
    root,
    base,
    baseBytes,
    changed,
    builtAtNs,
    signal,
  }: { root: string; base: IndexData; baseBytes: number; changed: readonly Changed[]; builtAtNs: bigint; signal?: AbortSignal | undefined },
): Promise<KeyedChanges> {
  if (changed.length > settings.changedMaxEntries) {
    return {
      kind: 'whole',
      why: `${changed.length} files and directories changed since the build (changedMaxEntries ${settings.changedMaxEntries})`,
    }
  }
  const found = new Map<string, Found>()
  // By path: a directory both named and below one listed whole is recorded once.
  const dirs = new Map<string, number>()
  const listedDirs = { push: ([rel, inode]: [string, number]) => dirs.set(rel, inode) }
  for (const { type, inode, rel } of changed) {
    if (type === 'f') {
      found.set(rel, { rel, path: pathOf(root, rel) })
    } else if (type === 'd') {
      // The root replaced: nothing the index holds is the tree's.
      if (rel === '' && base.dirs.get('') !== inode) return { kind: 'whole', why: 'the tree was replaced since the build' }
      const listed: Found[] = []
      throwIfCancelled(signal)
      if (base.dirs.get(rel) === inode) await listOwn(root, rel, inode, listed, listedDirs)
      else await walk(root, rel, listed, listedDirs, signal)
      for (const file of listed) found.set(file.rel, file)
    }
  }
  const files = [...found.values()]
  if (files.length > settings.changedMaxEntries) {
    return { kind: 'whole', why: `${files.length} files to key since the build (changedMaxEntries ${settings.changedMaxEntries})` }
  }
  const keyed = await keyTree(PathFeed.of(files.map((f) => f.path)), {
    fileMaxBytes: settings.fileMaxBytes,
    indexMaxBytes: settings.indexMaxBytes,
    workers: settings.buildWorkers,
    signal,
  })
  const merged = mergeSegments(keyed.segments, files.length)
  const { bytes: indexBytes, parts } = encodeIndex({
    header: {
      root,
      builtAtNs: builtAtNs.toString(),
      covers:
        'the files changed under root since the base index was built: each changed file, the own files of each changed directory, new directories whole; the base index covers the rest',
      base: { checksum: base.checksum, builtAtNs: base.header.builtAtNs },
    },
    files: files.map((f) => f.rel),
    fileFlags: keyed.flags,
    fileTimes: keyed.times,
    dirs: [...dirs],
    ...merged,
  })
  if (indexBytes + baseBytes > settings.indexMaxBytes) tooLarge(settings.indexMaxBytes)
  const indexPath = join(treeDir(settings.dir, root), UPDATE_FILE)
  const inode = await writeAtomically(indexPath, parts, signal)
  return {
    kind: 'written',
    root,
    indexPath,
    files: files.length,
    alwaysRead: keyed.flags.reduce((n, f) => n + (f === FILE_ALWAYS ? 1 : 0), 0),
    contentBytes: keyed.contentBytes,
    indexBytes,
    trigrams: merged.keys.length,
    dirs: [...dirs],
    inode,
  }
}

/** A file's path from the root's text and its path below it in raw bytes (latin1). */
export function pathOf(root: string, rel: string): Buffer {
  return Buffer.concat([Buffer.from(root), Buffer.from(`/${rel}`, 'latin1')])
}

/**
 * A changed directory the index knows by its inode (`inode`): its own files, one of which may have
 * been added or moved in; not VCS directories or links. A directory in it that is new or moved in has
 * a ctime of its own, so the walk names it. Replaced since the walk, it is listed whole.
 */
async function listOwn(
  root: string,
  rel: string,
  inode: number,
  files: Found[],
  dirs: { push(dir: [string, number]): void },
): Promise<void> {
  const path = rel === '' ? Buffer.from(root) : pathOf(root, rel)
  let entries
  try {
    if (Number((await stat(path, { bigint: true })).ino) !== inode) return await walk(root, rel, files, dirs)
    entries = await readdir(path, { withFileTypes: true, encoding: 'buffer' })
  } catch {
    // Gone or unlistable since the walk: every search reads it whole, as the build would have.
    dirs.push([rel, UNREAD_DIR])
    return
  }
  dirs.push([rel, inode])
  for (const entry of entries) {
    const name = entry.name.toString('latin1')
    const child = rel === '' ? name : `${rel}/${name}`
    if (entry.isFile() && !(SKIPPED_DIRS as readonly string[]).includes(name)) files.push({ rel: child, path: pathOf(root, child) })
  }
}
