// Keys a chunk of the walk's files (read each, collect its trigrams, sort the pairs into segments): run by the build's worker threads, and by the build itself with one.
// It imports nothing that loads @dsh/core, so a worker loads only this, the trigrams and the postings.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
// A type only: erased, so a worker still loads nothing of @dsh/core.
import type { FileTime } from '@dsh/core'
import { FILE_ALWAYS, FILE_INDEXED, FILE_INDEXED_NUL } from './file-flags.js'
import { PostingsBuilder, type Segment } from './postings.js'
import { TrigramCollector } from './trigrams.js'

/**
 * Files with contiguous ids from `first`, their paths (raw bytes) packed end to end: two buffers a
 * worker takes by transfer, where an array of 4,096 Buffers would be cloned one by one.
 */
export interface ChunkTask {
  /** The chunk's place among the tree's chunks: its segments merge in this order. */
  chunk: number
  first: number
  paths: Uint8Array
  /** Where each path ends in `paths`. */
  ends: Uint32Array
}

/** A keyed chunk: each file's flag byte and modification time, the bytes keyed, and the chunk's postings segments in id order. */
export interface KeyedChunk {
  chunk: number
  flags: Uint8Array
  /** NaN seconds for a file that could not be opened. */
  seconds: Float64Array
  nanos: Uint32Array
  contentBytes: number
  segments: Segment[]
}

/** Packs the paths of files `first` to `first + paths.length - 1` into a task. */
export function packChunk(chunk: number, first: number, paths: readonly Buffer[]): ChunkTask {
  const ends = new Uint32Array(paths.length)
  let at = 0
  paths.forEach((path, i) => (ends[i] = at += path.length))
  // Copied into a buffer of its own (Buffer.concat may return a view of Node's shared pool), so it can be transferred.
  const packed = new Uint8Array(at)
  at = 0
  for (const path of paths) {
    packed.set(path, at)
    at += path.length
  }
  return { chunk, first, paths: packed, ends }
}

/** The buffers a keyed chunk holds, each once, for `postMessage`'s transfer list. */
export function chunkTransfers(keyed: KeyedChunk): ArrayBuffer[] {
  const buffers = [keyed.flags.buffer, keyed.seconds.buffer, keyed.nanos.buffer]
  for (const s of keyed.segments) buffers.push(s.keys.buffer, s.starts.buffer, s.last.buffer, s.data.buffer)
  return buffers as ArrayBuffer[]
}

const NS_PER_SECOND = 1_000_000_000n

/** Puts a time in nanoseconds since the epoch into `time` as whole seconds rounded down and the nanoseconds after them. */
export function splitTime(ns: bigint, time: FileTime): void {
  const nanos = ((ns % NS_PER_SECOND) + NS_PER_SECOND) % NS_PER_SECOND
  time.seconds = Number((ns - nanos) / NS_PER_SECOND)
  time.nanos = Number(nanos)
}

/**
 * Reads a regular file the walk found into `scratch`, synchronously (an open, a stat, a read and a
 * close a file: the promise API costs more than the work), without following a link or waiting on a
 * FIFO that replaced it. Its length; `{ scratch }`, a larger buffer to read it again into, when it does
 * not fit; undefined when it cannot be keyed: gone, unreadable, not a regular file now, or larger than
 * `maxBytes` (every search reads it; rg will say why itself if it cannot). Its modification time goes
 * into `time` when the file is a regular one it could open, else NaN seconds.
 */
export function readForIndex(
  path: Buffer,
  maxBytes: number,
  scratch: Buffer,
  time: FileTime = { seconds: 0, nanos: 0 },
): number | { scratch: Buffer } | undefined {
  time.seconds = Number.NaN
  time.nanos = 0
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const info = fstatSync(fd, { bigint: true })
    if (!info.isFile()) return undefined
    splitTime(info.mtimeNs, time)
    const size = Number(info.size)
    if (size > maxBytes) return undefined
    // One byte more than its size: a file that grew since is read in full, from a larger buffer.
    if (size >= scratch.length) return { scratch: Buffer.alloc(Math.max(size + 1, scratch.length * 2)) }
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
 * Keys chunk after chunk with one trigram collector (2^24 slots, 64 MB) and one postings builder. A
 * chunk's ids must not have been keyed by this keyer before: the collector tells a file's keys apart
 * by its id alone.
 */
export class ChunkKeyer {
  private readonly collector = new TrigramCollector()
  private readonly postings: PostingsBuilder
  private scratch: Buffer = Buffer.alloc(1 << 20)

  /** `segmentPairs`: see `PostingsBuilder` (tests make it small). */
  constructor(
    private readonly fileMaxBytes: number,
    segmentPairs?: number,
  ) {
    this.postings = new PostingsBuilder(segmentPairs)
  }

  /**
   * Keys the chunk's files in id order. `pause` is called between files; the build in its own thread
   * returns a promise from it now and then, to let the event loop run, and a worker never does.
   */
  async keyChunk(task: ChunkTask, pause: () => Promise<void> | undefined): Promise<KeyedChunk> {
    const { first, paths, ends } = task
    const flags = new Uint8Array(ends.length)
    const seconds = new Float64Array(ends.length)
    const nanos = new Uint32Array(ends.length)
    const time: FileTime = { seconds: 0, nanos: 0 }
    let contentBytes = 0
    let start = 0
    for (let i = 0; i < ends.length; i++) {
      const waited = pause()
      if (waited !== undefined) await waited
      const path = Buffer.from(paths.buffer, paths.byteOffset + start, ends[i]! - start)
      start = ends[i]!
      let size = readForIndex(path, this.fileMaxBytes, this.scratch, time)
      while (typeof size === 'object') {
        this.scratch = size.scratch
        size = readForIndex(path, this.fileMaxBytes, this.scratch, time)
      }
      seconds[i] = time.seconds
      nanos[i] = time.nanos
      const bytes = size === undefined ? undefined : this.scratch.subarray(0, size)
      if (bytes === undefined || alwaysRead(bytes)) {
        flags[i] = FILE_ALWAYS
        continue
      }
      flags[i] = bytes.includes(0) ? FILE_INDEXED_NUL : FILE_INDEXED
      contentBytes += bytes.length
      const { collector } = this
      // Collected first: a file with more keys than the last grows the arrays `keys` and `positions` return.
      const count = collector.collect(bytes)
      this.postings.addFile(first + i, collector.keys, collector.positions, count)
    }
    return { chunk: task.chunk, flags, seconds, nanos, contentBytes, segments: this.postings.takeSegments() }
  }
}
