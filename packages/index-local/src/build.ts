// Builds a tree's index: walk every file but VCS directories and links, key each one's trigrams, write atomically.
import { lstat, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { LocalIndexSettings } from './config.js'
import { IndexError } from './errors.js'
import { encodeIndex, FILE_ALWAYS, FILE_INDEXED, UNREAD_DIR, writeVarint } from './format.js'
import { ensurePrivateDir, INDEX_FILE, treeDir } from './location.js'
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

// Pairs of (key, file) collected before they are sorted into a segment: 8 bytes each.
const SEGMENT_PAIRS = 1 << 22
// Files read side by side while one is keyed.
const READ_AHEAD = 8

/** One batch of postings, sorted by key: each key's file ids varint-coded, ascending. */
interface Segment {
  keys: Uint32Array
  starts: Uint32Array
  data: Uint8Array
}

/** Collects (key, file) pairs and turns each full batch into a sorted segment. */
class PostingsBuilder {
  private pairKeys = new Uint32Array(SEGMENT_PAIRS)
  private pairFiles = new Uint32Array(SEGMENT_PAIRS)
  private count = 0
  private counts: Uint32Array | undefined
  readonly segments: Segment[] = []
  segmentBytes = 0

  constructor(private readonly maxBytes: number) {}

  add(key: number, file: number): void {
    if (this.count === SEGMENT_PAIRS) this.flush()
    this.pairKeys[this.count] = key
    this.pairFiles[this.count] = file
    this.count++
  }

  flush(): void {
    if (this.count === 0) return
    const counts = (this.counts ??= new Uint32Array(1 << 24))
    counts.fill(0)
    for (let i = 0; i < this.count; i++) counts[this.pairKeys[i]!]!++
    let distinct = 0
    for (let k = 0; k < counts.length; k++) if (counts[k] !== 0) distinct++
    const keys = new Uint32Array(distinct)
    const offsets = new Uint32Array(distinct + 1)
    let slot = 0
    for (let k = 0, at = 0; k < counts.length; k++) {
      const n = counts[k]!
      if (n === 0) continue
      keys[slot] = k
      offsets[slot] = at
      counts[k] = slot++
      at += n
    }
    offsets[distinct] = this.count
    // Place file ids by key; within a key they stay in the order added, which is ascending.
    const fill = offsets.slice(0, distinct)
    const sorted = new Uint32Array(this.count)
    for (let i = 0; i < this.count; i++) sorted[fill[counts[this.pairKeys[i]!]!]!++] = this.pairFiles[i]!
    const bytes: number[] = []
    const starts = new Uint32Array(distinct + 1)
    for (let s = 0; s < distinct; s++) {
      starts[s] = bytes.length
      for (let j = offsets[s]!; j < offsets[s + 1]!; j++) writeVarint(bytes, sorted[j]!)
    }
    starts[distinct] = bytes.length
    this.segments.push({ keys, starts, data: Uint8Array.from(bytes) })
    this.segmentBytes += bytes.length + distinct * 8
    this.count = 0
    if (this.segmentBytes > this.maxBytes) tooLarge(this.maxBytes)
  }

  /** Merges the segments into one sorted key table and gap-coded postings. */
  merge(): { keys: Uint32Array; starts: Uint32Array; postings: Uint8Array[] } {
    this.flush()
    const cursors = this.segments.map(() => 0)
    const keys: number[] = []
    const starts: number[] = []
    const chunks: Uint8Array[] = []
    let out: number[] = []
    let total = 0
    for (;;) {
      let key = Infinity
      this.segments.forEach((s, k) => {
        const c = cursors[k]!
        if (c < s.keys.length && s.keys[c]! < key) key = s.keys[c]!
      })
      if (key === Infinity) break
      keys.push(key)
      starts.push(total + out.length)
      let previous = -1
      this.segments.forEach((s, k) => {
        const c = cursors[k]!
        if (c >= s.keys.length || s.keys[c] !== key) return
        let at = s.starts[c]!
        const end = s.starts[c + 1]!
        while (at < end) {
          let id = 0
          let shift = 1
          for (;;) {
            const byte = s.data[at++]!
            id += (byte & 0x7f) * shift
            if (byte < 0x80) break
            shift *= 128
          }
          writeVarint(out, id - previous - 1)
          previous = id
        }
        cursors[k] = c + 1
      })
      // The segments already passed the size check, and hold at least these bytes.
      if (out.length > 1 << 20) {
        total += out.length
        chunks.push(Uint8Array.from(out))
        out = []
      }
    }
    total += out.length
    chunks.push(Uint8Array.from(out))
    starts.push(total)
    return { keys: Uint32Array.from(keys), starts: Uint32Array.from(starts), postings: chunks }
  }
}

function tooLarge(maxBytes: number): never {
  throw new IndexError('INDEX_TOO_LARGE', `the index would pass indexMaxBytes (${maxBytes} bytes); raise it or index a smaller tree`)
}

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
  const read = async (file: Found): Promise<Buffer | undefined> => {
    try {
      const size = (await lstat(file.path)).size
      if (size > settings.fileMaxBytes) return undefined
      return await readFile(file.path)
    } catch {
      // Unreadable now: rg will say so itself when it tries.
      return undefined
    }
  }
  const ahead: Array<Promise<Buffer | undefined>> = []
  for (let id = 0; id < found.length; id++) {
    while (ahead.length < READ_AHEAD && id + ahead.length < found.length) ahead.push(read(found[id + ahead.length]!))
    const bytes = await ahead.shift()!
    if (bytes === undefined || alwaysRead(bytes)) {
      flags[id] = FILE_ALWAYS
      continue
    }
    flags[id] = FILE_INDEXED
    contentBytes += bytes.length
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
