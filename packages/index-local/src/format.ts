// The index file, version 6 (docs/design.md#the-index-file): every section, and the checksum that makes a damaged or foreign file refused.
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, openSync, read as readCallback, readSync } from 'node:fs'
import { promisify } from 'node:util'
import { IndexError } from './errors.js'
import { denseListBytes } from './postings.js'

/** The file's first eight bytes. */
export const INDEX_MAGIC = Buffer.from('DSHINDEX', 'latin1')
/** The layout this code writes and reads; any other is refused and rebuilt by `dsh index`. */
export const INDEX_FORMAT_VERSION = 6
const CHECKSUM_BYTES = 32

export { FILE_ALWAYS, FILE_INDEXED, FILE_INDEXED_NUL } from './file-flags.js'

/** A directory's inode when the build could not list it: every search reads it whole. */
export const UNREAD_DIR = -1

/** What the header records: the tree it covers, when, and how many of each section's entries follow. */
export interface IndexHeader {
  /** The tree's real path, as built. */
  root: string
  /** The build's clock mark in nanoseconds since the epoch: a file whose ctime is later changed since. */
  builtAtNs: string
  /** What the file list covers, in words (every file but VCS directories and links: both tools' views). */
  covers: string
  /**
   * An update's only (docs/design.md#an-update-keys-what-changed): the checksum of the index it updates,
   * as hex, and that index's clock mark; its files are what changed since that mark.
   */
  base?: { checksum: string; builtAtNs: string }
  files: number
  dirs: number
  trigrams: number
  filePathBytes: number
  dirPathBytes: number
  postingBytes: number
}

/** The index in memory: the header, then each section as typed views over the file's bytes. */
export interface IndexData {
  header: IndexHeader
  /** The file's SHA-256, as hex: what an update names as its base. */
  checksum: string
  /** Paths from the root, '/'-separated, raw bytes as latin1 strings. */
  files: FilePaths
  fileFlags: Uint8Array
  /** Each file's modification time as the build read it (docs/design.md#glob-reads-times-from-the-index). */
  fileTimes: FileTimes
  dirs: Map<string, number>
  /** Sorted keys, and for each its postings' start in the postings (one more entry: the end). */
  keys: Uint32Array
  starts: Uint32Array
  /**
   * The postings' bytes from `start` to `end`, read from where the index lies, into memory the next
   * call may reuse: read them before asking for more.
   */
  postings: (start: number, end: number) => Uint8Array
}

/**
 * Files' modification times as the kernel keeps them: whole seconds (negative before 1970) and the
 * nanoseconds after them (0 to 999,999,999). NaN seconds: not read (the file could not be opened).
 */
export interface FileTimes {
  seconds: Float64Array
  nanos: Uint32Array
}

/** `count` files' times, none read. */
export function unreadTimes(count: number): FileTimes {
  return { seconds: new Float64Array(count).fill(Number.NaN), nanos: new Uint32Array(count) }
}

/**
 * The index's file paths, kept as the one string they are stored as, with where each ends: a warm
 * server's collector then marks one string, not one per file (500,000 on the largest tree measured).
 */
export class FilePaths {
  readonly length: number
  /** The paths, NUL-separated. */
  readonly text: string
  private readonly ends: Uint32Array

  /** `text`: the paths, NUL-separated; undefined for none. */
  constructor(text: string | undefined) {
    const ends: number[] = []
    if (text !== undefined) {
      for (let at = text.indexOf('\0'); at >= 0; at = text.indexOf('\0', at + 1)) ends.push(at)
      ends.push(text.length)
    }
    this.text = text ?? ''
    this.ends = Uint32Array.from(ends)
    this.length = ends.length
  }

  /** The path of file `id`. */
  at(id: number): string {
    return this.text.slice(id === 0 ? 0 : this.ends[id - 1]! + 1, this.ends[id])
  }

  /** Where the path of file `id` starts in `text`. */
  start(id: number): number {
    return id === 0 ? 0 : this.ends[id - 1]! + 1
  }

  /** Where the path of file `id` ends in `text`. */
  end(id: number): number {
    return this.ends[id]!
  }

  /** Whether the path of file `id` starts with `prefix` (which holds no NUL). */
  startsWith(id: number, prefix: string): boolean {
    return this.text.startsWith(prefix, id === 0 ? 0 : this.ends[id - 1]! + 1)
  }
}

/** The sections to write, in order. */
export interface IndexSections {
  header: Omit<IndexHeader, 'filePathBytes' | 'dirPathBytes' | 'postingBytes' | 'files' | 'dirs' | 'trigrams'>
  files: readonly string[]
  fileFlags: Uint8Array
  /** @default none read */
  fileTimes?: FileTimes
  dirs: ReadonlyArray<readonly [string, number]>
  keys: Uint32Array
  /** Where each key's list starts in the postings; one more entry, their length. */
  starts: Uint32Array
  /** The postings' bytes, in order: pulled a chunk at a time as the file is written (see `MergedPostings`). */
  postings: Iterable<Uint8Array>
}

function pad4(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4)
}

/**
 * The file's size, and its bytes section by section, the SHA-256 of all before it last. The bytes are
 * made as they are pulled, so each part must be written by the time the one after the next is pulled
 * (the postings' chunks take turns in two buffers).
 */
export function encodeIndex(sections: IndexSections): { bytes: number; parts: Iterable<Uint8Array> } {
  const filePaths = Buffer.from(sections.files.join('\0'), 'latin1')
  const dirPaths = Buffer.from(sections.dirs.map(([p]) => p).join('\0'), 'latin1')
  const inodes = new Float64Array(sections.dirs.map(([, ino]) => ino))
  const times = sections.fileTimes ?? unreadTimes(sections.files.length)
  const postingBytes = sections.starts[sections.keys.length]!
  const header: IndexHeader = {
    ...sections.header,
    files: sections.files.length,
    dirs: sections.dirs.length,
    trigrams: sections.keys.length,
    filePathBytes: filePaths.length,
    dirPathBytes: dirPaths.length,
    postingBytes,
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8')
  const fixed = Buffer.alloc(16)
  INDEX_MAGIC.copy(fixed, 0)
  fixed.writeUInt32LE(INDEX_FORMAT_VERSION, 8)
  fixed.writeUInt32LE(json.length, 12)
  const head: Uint8Array[] = [
    fixed,
    json,
    pad4(json.length),
    new Uint8Array(inodes.buffer, inodes.byteOffset, inodes.byteLength),
    new Uint8Array(times.seconds.buffer, times.seconds.byteOffset, times.seconds.byteLength),
    new Uint8Array(times.nanos.buffer, times.nanos.byteOffset, times.nanos.byteLength),
    new Uint8Array(sections.keys.buffer, sections.keys.byteOffset, sections.keys.byteLength),
    new Uint8Array(sections.starts.buffer, sections.starts.byteOffset, sections.starts.byteLength),
    sections.fileFlags,
    filePaths,
    dirPaths,
  ]
  function* parts(): Generator<Uint8Array> {
    const hash = createHash('sha256')
    for (const section of [head, sections.postings])
      for (const p of section) {
        hash.update(p)
        yield p
      }
    yield hash.digest()
  }
  return { bytes: head.reduce((n, p) => n + p.length, 0) + postingBytes + 32, parts: parts() }
}

function refuse(why: string): never {
  throw new IndexError('INDEX_REFUSED', why)
}

/** Where an index's bytes come from: a buffer in memory, or a file read as it is needed. */
interface Source {
  size: number
  read: (at: number, length: number) => Buffer
  /** `read`, into memory the next call may reuse. */
  readShared: (at: number, length: number) => Buffer
  /** The SHA-256 of the first `length` bytes. */
  digest: (length: number) => Buffer
}

/** Reads and checks an index file's bytes: the magic, the version, the checksum, every length. Refuses anything else. */
export function decodeIndex(bytes: Buffer): IndexData {
  return decode({
    size: bytes.length,
    read: (at, length) => bytes.subarray(at, at + length),
    readShared: (at, length) => bytes.subarray(at, at + length),
    digest: (length) => createHash('sha256').update(bytes.subarray(0, length)).digest(),
  })
}

// The checksum is computed over the file a slice at a time, so the postings never sit in memory.
const DIGEST_SLICE = 1 << 20

/**
 * Opens an index file and checks it as `decodeIndex` does, keeping in memory only what every search
 * needs (the header, keys, starts, flags and paths): the postings, most of the file, are read from it
 * as a search needs them. A process that holds a large buffer pays for it in every child it starts
 * (forking copies its page tables: 400 MB held made a spawn 35–40 ms instead of 3), and the page cache
 * keeps the postings a search reads warm anyway. The file stays open until `close`, so a file renamed
 * over it (a rebuild) is not read by mistake. `verify: false` takes the checksum the file states
 * without reading the file through (a second per GiB), for a reader that trusts nothing else in it.
 */
export function openIndexFile(path: string, options: { verify?: boolean } = {}): IndexData & { close(): void } {
  return fromFile(
    path,
    (shared, length) => {
      const hash = createHash('sha256')
      for (let at = 0; at < length; at += DIGEST_SLICE) hash.update(shared(at, Math.min(DIGEST_SLICE, length - at)))
      return hash.digest()
    },
    options.verify ?? true,
  )
}

/**
 * `openIndexFile` for a process that answers other requests while it loads (`dsh mcp`, the warm
 * server): the checksum, a second per GiB, is read with asynchronous reads, so the event loop runs
 * between slices; only the tables every search needs are read in one go (a third of a second for the
 * 500,000-file tree's 1.1 GiB index).
 */
export async function loadIndexFile(path: string): Promise<IndexData & { close(): void }> {
  const fd = openSync(path, 'r')
  let digest: Buffer
  try {
    const length = fstatSync(fd).size - CHECKSUM_BYTES
    const hash = createHash('sha256')
    const slice = Buffer.allocUnsafe(DIGEST_SLICE)
    for (let at = 0; at < length;) {
      const { bytesRead: n } = await readAsync(fd, slice, 0, Math.min(DIGEST_SLICE, length - at), at)
      if (n === 0) refuse('the index file ended early: it changed while it was read')
      hash.update(slice.subarray(0, n))
      at += n
    }
    digest = hash.digest()
  } catch (error) {
    closeSync(fd)
    throw error
  }
  // decode asks for the digest of every byte before the checksum: the one just taken.
  return fromFile(fd, () => digest, true)
}

/** `read` as a promise of what it read: the event loop runs while the thread pool reads. */
const readAsync = promisify(readCallback)

/**
 * Decodes the index file at `file` (a path, or a descriptor already open on it), `digest` giving the
 * SHA-256 of its first `length` bytes when `verify`; the descriptor stays open for the postings until
 * `close`, and is closed on any refusal.
 */
function fromFile(
  file: string | number,
  digest: (shared: (at: number, length: number) => Buffer, length: number) => Buffer,
  verify: boolean,
): IndexData & { close(): void } {
  const fd = typeof file === 'number' ? file : openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    // Postings are read into one buffer, kept: a dense list is 1.5 MB on the 500,000-file tree, and a
    // buffer a list made a warm server's collector sweep its heap (the decoded paths) every call.
    let shared = Buffer.alloc(0)
    const readShared = (at: number, length: number): Buffer => {
      if (shared.length < length) shared = Buffer.allocUnsafe(Math.max(length, shared.length * 2))
      return readAt(shared, at, length)
    }
    const read = (at: number, length: number): Buffer => readAt(Buffer.allocUnsafe(length), at, length)
    const readAt = (out: Buffer, at: number, length: number): Buffer => {
      let done = 0
      while (done < length) {
        const n = readSync(fd, out, done, length - done, at + done)
        if (n === 0) refuse('the index file ended early: it changed while it was read')
        done += n
      }
      return out.subarray(0, length)
    }
    const source = { size, read, readShared, digest: (length: number) => digest(readShared, length) }
    return { ...decode(source, verify), close: () => closeSync(fd) }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

function decode(source: Source, verify = true): IndexData {
  const { size, read } = source
  const fixed = size < 16 + CHECKSUM_BYTES ? undefined : read(0, 16)
  if (fixed === undefined || !fixed.subarray(0, 8).equals(INDEX_MAGIC)) refuse('not a dsh index file')
  const version = fixed.readUInt32LE(8)
  if (version !== INDEX_FORMAT_VERSION) refuse(`index format ${version}, this dsh reads format ${INDEX_FORMAT_VERSION}`)
  const bodyBytes = size - CHECKSUM_BYTES
  const checksum = read(bodyBytes, CHECKSUM_BYTES)
  if (verify && !source.digest(bodyBytes).equals(checksum)) refuse('the index checksum does not match: the file is damaged')
  const jsonBytes = fixed.readUInt32LE(12)
  let at = 16
  /** Where a section of `n` bytes starts, from the header's counts, which must fit the file. */
  const section = (n: number): number => {
    if (!Number.isSafeInteger(n) || n < 0 || at + n > bodyBytes) refuse('an index section runs past the end of the file')
    at += n
    return at - n
  }
  const take = (n: number): Buffer => read(section(n), n)
  let header: IndexHeader
  try {
    header = JSON.parse(take(jsonBytes).toString('utf8')) as IndexHeader
  } catch {
    refuse('the index header is not JSON')
  }
  at += (4 - (jsonBytes % 4)) % 4
  // Typed arrays need aligned, owned memory: copy the small tables out.
  const inodes = new Float64Array(new Uint8Array(take(header.dirs * 8)).buffer)
  const fileTimes = {
    seconds: new Float64Array(new Uint8Array(take(header.files * 8)).buffer),
    nanos: new Uint32Array(new Uint8Array(take(header.files * 4)).buffer),
  }
  const keys = new Uint32Array(new Uint8Array(take(header.trigrams * 4)).buffer)
  const starts = new Uint32Array(new Uint8Array(take((header.trigrams + 1) * 4)).buffer)
  const fileFlags = new Uint8Array(take(header.files))
  const files = new FilePaths(header.files === 0 ? undefined : take(header.filePathBytes).toString('latin1'))
  const dirPaths = header.dirs === 0 ? [] : take(header.dirPathBytes).toString('latin1').split('\0')
  // Read from the source as searches need them.
  const postingsAt = section(header.postingBytes)
  if (at !== bodyBytes || files.length !== header.files || dirPaths.length !== header.dirs) refuse('the index sections do not add up')
  if (starts[header.trigrams] !== header.postingBytes) refuse('the index postings do not add up')
  const dirs = new Map<string, number>()
  dirPaths.forEach((p, k) => dirs.set(p, inodes[k]!))
  return {
    header,
    checksum: checksum.toString('hex'),
    files,
    fileFlags,
    fileTimes,
    dirs,
    keys,
    starts,
    postings: (start, end) => source.readShared(postingsAt + start, end - start),
  }
}

/** The bytes after each posting's gap: where in the file its trigram starts, modulo 16 (`POSITION_BITS`). */
export const POSITION_BYTES = 2

/**
 * The file ids of one key's postings, in ascending order, or only those of `within` (ascending) when
 * given: the list is read no further than `within`'s last id. Refuses ids out of range.
 */
export function readPostings(index: IndexData, slot: number, within?: Uint32Array): Uint32Array {
  return readPostingList(index, slot, within).ids
}

/** `readPostings`, with each id's position mask beside it. */
export function readPostingList(index: IndexData, slot: number, within?: Uint32Array): { ids: Uint32Array; positions: Uint16Array } {
  const { starts, header } = index
  if (isDense(index, slot)) return readDense(index, starts[slot]! + 2, within)
  const postings = index.postings(starts[slot]!, starts[slot + 1]!)
  const end = postings.length
  let at = 0
  // Each posting takes at least a byte of gap and its positions.
  const room = Math.floor(end / (1 + POSITION_BYTES))
  const size = within === undefined ? room : Math.min(room, within.length)
  const ids = new Uint32Array(size)
  const positions = new Uint16Array(size)
  let count = 0
  let next = 0
  const files = header.files
  const stop = within === undefined ? Infinity : within.length === 0 ? -1 : within[within.length - 1]!
  let id = -1
  // The hot loop of a plan: a long list in gaps holds a posting for up to two files in three.
  while (at < end && id < stop) {
    let byte = postings[at++]!
    let delta = byte & 0x7f
    for (let shift = 128; byte >= 0x80; shift *= 128) {
      if (at >= end) refuse('an index posting list is cut')
      byte = postings[at++]!
      delta += (byte & 0x7f) * shift
    }
    if (at + POSITION_BYTES > end) refuse('an index posting list is cut')
    id += delta + 1
    if (id >= files) refuse('an index posting names a file it does not hold')
    if (within !== undefined) {
      while (within[next]! < id) next++
      if (within[next] !== id) {
        at += POSITION_BYTES
        continue
      }
    }
    ids[count] = id
    positions[count++] = postings[at]! | (postings[at + 1]! << 8)
    at += POSITION_BYTES
  }
  return { ids: ids.subarray(0, count), positions: positions.subarray(0, count) }
}

/** Whether a key's list is dense (`denseListBytes`): of its length, and starting with the mark no list in gaps starts with. */
export function isDense(index: IndexData, slot: number): boolean {
  const start = index.starts[slot]!
  if (index.starts[slot + 1]! - start !== denseListBytes(index.header.files)) return false
  const mark = index.postings(start, start + 2)
  return mark[0] === 0x80 && mark[1] === 0
}

/**
 * A dense list's files (those of `within`, when given) and their masks: the span from the first id
 * asked about to the last is read (at most two bytes a file of the index), and each id's two bytes
 * looked up there, so the work is the files still standing, not the list's postings.
 */
function readDense(index: IndexData, at: number, within: Uint32Array | undefined): { ids: Uint32Array; positions: Uint16Array } {
  if (within?.length === 0) return { ids: new Uint32Array(0), positions: new Uint16Array(0) }
  const first = within === undefined ? 0 : within[0]!
  const last = within === undefined ? index.header.files - 1 : within[within.length - 1]!
  const masks = index.postings(at + 2 * first, at + 2 * last + 2)
  const size = within === undefined ? index.header.files : within.length
  const ids = new Uint32Array(size)
  const positions = new Uint16Array(size)
  let count = 0
  for (let k = 0; k < size; k++) {
    const id = within === undefined ? k : within[k]!
    const mask = masks[2 * (id - first)]! | (masks[2 * (id - first) + 1]! << 8)
    if (mask === 0) continue
    ids[count] = id
    positions[count++] = mask
  }
  return { ids: ids.subarray(0, count), positions: positions.subarray(0, count) }
}

/** The slot of a key in the sorted key table, or -1. */
export function findKey(keys: Uint32Array, key: number): number {
  let lo = 0
  let hi = keys.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const k = keys[mid]!
    if (k === key) return mid
    if (k < key) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
