// The local SearchIndex: find the index that covers a search, prove which files cannot match, and hand rg an ignore file.
import { isUtf8 } from 'node:buffer'
import { randomBytes } from 'node:crypto'
import { readFile, realpath, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BashExecutor, IndexAnswer, IndexFallback, IndexQuery, SearchIndex } from '@dsh/core'
import { resolveIndexOptions, type LocalIndexOptions, type LocalIndexSettings } from './config.js'
import { IndexError } from './errors.js'
import { decodeIndex, FILE_ALWAYS, findKey, readPostings, UNREAD_DIR, type IndexData } from './format.js'
import { changedSince } from './freshness.js'
import { ancestors, assertPrivate, INDEX_FILE, treeDir } from './location.js'
import { patternQuery, type TrigramQuery } from './regex-query.js'

// The change walk stats every entry once: a second per ~300,000 on the reference machine; this is room.
const FRESHNESS_TIMEOUT_MS = 60_000
// Bytes of find's output kept: about 20 entries a KiB.
const FRESHNESS_MAX_BYTES = 16 * 1024 * 1024

/** What `createLocalSearchIndex` takes. */
export interface LocalSearchIndexOptions extends LocalIndexOptions {
  /** Runs the change walk (`find`): the only process the index starts. */
  bash: BashExecutor
}

/** The local index, with its settings for `dsh index`. */
export interface LocalSearchIndex extends SearchIndex {
  readonly settings: LocalIndexSettings
}

/** A decoded index kept while its file stays the same (inode, size, mtime): a warm `dsh mcp` decodes it once. */
interface Loaded {
  stamp: string
  data: IndexData
}

function fullScan(reason: IndexFallback, detail: string): IndexAnswer {
  return { kind: 'full-scan', reason, detail }
}

/** Sorted ascending ids, intersected. */
function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++
    else if (a[i]! > b[j]!) j++
    else {
      out.push(a[i]!)
      i++
      j++
    }
  }
  return Uint32Array.from(out)
}

function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!)
    else if (i >= a.length || b[j]! < a[i]!) out.push(b[j++]!)
    else {
      out.push(a[i++]!)
      j++
    }
  }
  return Uint32Array.from(out)
}

/** The ids of the files whose trigrams meet the query (`all` never reaches here). */
function evaluate(index: IndexData, query: TrigramQuery): Uint32Array {
  switch (query.op) {
    case 'trigram': {
      const slot = findKey(index.keys, query.key)
      return slot < 0 ? new Uint32Array(0) : readPostings(index, slot)
    }
    case 'and': {
      let ids = evaluate(index, query.of[0]!)
      for (const q of query.of.slice(1)) {
        if (ids.length === 0) break
        ids = intersect(ids, evaluate(index, q))
      }
      return ids
    }
    case 'or':
      return query.of.map((q) => evaluate(index, q)).reduce(union)
    /* v8 ignore next 2 -- patternQuery simplifies `all` out of every and/or, and a bare `all` falls back before evaluation */
    default:
      throw new RangeError('an unreduced query')
  }
}

/**
 * A path as one line of a gitignore-style file: anchored at rg's working directory, each glob
 * character and space escaped. Undefined when no line can name it (a newline, or bytes that are not
 * UTF-8, which rg would read differently).
 */
export function ignoreLine(rel: string, suffix = ''): string | undefined {
  if (/[\n\r]/.test(rel) || !isUtf8(Buffer.from(rel, 'latin1'))) return undefined
  return `!/${rel.replace(/[\\*?[\]{}!# \t]/g, (c) => `\\${c}`)}${suffix}`
}

/** Creates the local index: `plan` for searches, `settings` for `dsh index`. */
export function createLocalSearchIndex(options: LocalSearchIndexOptions): LocalSearchIndex {
  const { bash, ...rest } = options
  const settings = resolveIndexOptions(rest)
  const cache = new Map<string, Loaded>()

  /** The nearest index that covers `dir` (a real path), with its root; undefined when none does. */
  async function findIndex(dir: string): Promise<{ root: string; data: IndexData } | undefined> {
    for (const root of ancestors(dir)) {
      const home = treeDir(settings.dir, root)
      const file = join(home, INDEX_FILE)
      const info = await stat(file, { bigint: true }).catch(() => undefined)
      if (info === undefined) continue
      await assertPrivate(home)
      await assertPrivate(file)
      const stamp = `${info.ino}:${info.size}:${info.mtimeNs}`
      let loaded = cache.get(file)
      if (loaded?.stamp !== stamp) {
        loaded = { stamp, data: decodeIndex(await readFile(file)) }
        cache.set(file, loaded)
      }
      if (loaded.data.header.root !== root)
        throw new IndexError('INDEX_REFUSED', `the index at ${file} is of another tree (${loaded.data.header.root})`)
      return { root, data: loaded.data }
    }
    return undefined
  }

  async function plan(query: IndexQuery): Promise<IndexAnswer> {
    let dir: string
    try {
      dir = await realpath(query.dir)
      if (!(await stat(dir)).isDirectory()) return fullScan('no-index', 'the search path is a file')
    } catch {
      return fullScan('no-index', 'the search path does not exist')
    }
    let found: Awaited<ReturnType<typeof findIndex>>
    try {
      found = await findIndex(dir)
    } catch (error) {
      return fullScan('refused', (error as Error).message)
    }
    if (found === undefined) return fullScan('no-index', 'no index covers the search path')
    const { root, data } = found
    const query3 = patternQuery(query.pattern, { caseInsensitive: query.caseInsensitive })
    if (query3.op === 'all') return fullScan('unreducible', 'the pattern has no literal of three bytes every match must contain')
    const builtAtNs = BigInt(data.header.builtAtNs)
    if (BigInt(Date.now()) * 1_000_000n < builtAtNs) return fullScan('freshness', 'the clock is earlier than the index build')
    const prefix = root === dir ? '' : `${dir.slice(root.length + 1)}/`
    const under = (rel: string) => rel.startsWith(prefix)
    let ids: Uint32Array
    try {
      ids = evaluate(data, query3)
    } catch (error) {
      return fullScan('refused', (error as Error).message)
    }
    const lines = ['*', '!*/']
    let indexedFiles = 0
    let candidates = 0
    const hit = new Uint8Array(data.files.length)
    for (const id of ids) hit[id] = 1
    for (let id = 0; id < data.files.length; id++) {
      const rel = data.files[id]!
      if (!under(rel)) continue
      indexedFiles++
      if (hit[id] === 0 && data.fileFlags[id] !== FILE_ALWAYS) continue
      candidates++
      const line = ignoreLine(rel.slice(prefix.length))
      if (line === undefined) return fullScan('names', 'a candidate file has a name an ignore file cannot hold')
      lines.push(line)
    }
    if (candidates > indexedFiles * settings.broadFraction) {
      return fullScan('broad', `${candidates} of ${indexedFiles} files may match: a full scan is as fast`)
    }
    const walked = await changedSince(
      bash,
      dir,
      builtAtNs,
      { maxBytes: FRESHNESS_MAX_BYTES, timeoutMs: FRESHNESS_TIMEOUT_MS },
      query.signal,
    )
    if (!walked.ok) return fullScan('freshness', walked.why)
    if (walked.changed.length > settings.changedMaxEntries) {
      return fullScan('changed', `${walked.changed.length} files and directories changed since the index was built: run dsh index`)
    }
    // What rg reaches through a link it follows has no path in the index: read it all.
    for (const link of query.followedLinks ?? []) {
      const line = ignoreLine(link.path, link.directory ? '/**' : '')
      if (line === undefined) return fullScan('names', 'a followed link has a name an ignore file cannot hold')
      lines.push(line)
    }
    // A directory the build could not read is searched whole, every time.
    for (const [rel, inode] of data.dirs) {
      if (inode !== UNREAD_DIR || !under(`${rel}/`)) continue
      const line = ignoreLine(rel.slice(prefix.length), '/**')
      if (line === undefined) return fullScan('names', 'an unread directory has a name an ignore file cannot hold')
      lines.push(line)
    }
    for (const { type, inode, rel } of walked.changed) {
      if (type !== 'd') {
        const line = ignoreLine(rel)
        if (line === undefined) return fullScan('names', 'a changed file has a name an ignore file cannot hold')
        lines.push(line)
        continue
      }
      // A directory whose entries changed: its own files are searched; a directory the index does not
      // know by this inode (new, moved in, replaced) is searched whole.
      const known = data.dirs.get(rel === '' ? prefix.slice(0, -1) : prefix + rel)
      const whole = known !== inode
      if (rel === '' && whole) return fullScan('changed', 'the search directory itself was replaced since the index was built')
      const line = rel === '' ? '!/*' : ignoreLine(rel, whole ? '/**' : '/*')
      if (line === undefined) return fullScan('names', 'a changed directory has a name an ignore file cannot hold')
      lines.push(line)
    }
    const ignoreFile = join(treeDir(settings.dir, root), `query-${process.pid}-${randomBytes(6).toString('hex')}.ignore`)
    await writeFile(ignoreFile, Buffer.from(`${lines.join('\n')}\n`, 'latin1'), { mode: 0o600, flag: 'wx' })
    return {
      kind: 'candidates',
      ignoreFile,
      indexedFiles,
      candidates,
      changed: walked.changed.length,
      release: () => rm(ignoreFile, { force: true }),
    }
  }

  return { settings, plan }
}
