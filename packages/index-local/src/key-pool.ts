// Keys the walk's files in chunks of contiguous ids: in worker threads, one chunk at a time each, or in this thread when one would do.
import { Worker } from 'node:worker_threads'
import { cancelled, IndexError, throwIfCancelled, tooLarge } from './errors.js'
import type { FileTimes } from './format.js'
import { ChunkKeyer, packChunk, type ChunkTask, type KeyedChunk } from './key-files.js'
import { segmentBytes, type Segment } from './postings.js'

/** Files a chunk holds: enough that a worker's round trip costs nothing next to keying them, few enough that the last chunks even out the workers' finish. */
export const CHUNK_FILES = 4096

// Keying in this thread yields this often, so a warm server running the build still answers its other calls.
const YIELD_EVERY_MS = 20

/** How a tree is keyed; the last three are seams for tests. */
export interface KeyOptions {
  fileMaxBytes: number
  indexMaxBytes: number
  /** Threads that key; 1 keys in this thread. */
  workers: number
  /** Aborted: keying stops (INDEX_CANCELLED) before the next chunk, and no worker is left. */
  signal?: AbortSignal | undefined
  /** Files a chunk holds. @default CHUNK_FILES */
  chunkFiles?: number
  /** Pairs a postings segment holds (see `PostingsBuilder`). */
  segmentPairs?: number
  /** The worker's entry. @default workerEntry(import.meta.url) */
  workerEntry?: URL
}

/** A tree's keyed files: each file's flag byte and modification time, the bytes keyed, and every segment in id order. */
export interface KeyedTree {
  flags: Uint8Array
  times: FileTimes
  contentBytes: number
  segments: Segment[]
}

/**
 * The worker's entry beside the module at `moduleUrl`: the built key-worker.js (in the CLI's bundle,
 * beside the program's script), or from TypeScript source the bootstrap that loads key-worker.ts
 * through tsx.
 */
export function workerEntry(moduleUrl: string): URL {
  return new URL(moduleUrl.endsWith('.ts') ? './key-worker-source.mjs' : './key-worker.js', moduleUrl)
}

/**
 * The paths of the files to key, `paths[id]` being file `id`, as a walk finds them: keying starts on
 * the first chunks while the walk goes on (on the 500,000-file tree the walk alone took 2–3 s).
 */
export class PathFeed {
  private readonly paths: Buffer[] = []
  private ended = false
  // Each waiting take, with how many paths it waits for.
  private waiting: Array<{ until: number; resolve: () => void }> = []

  /** A feed of paths all found already. */
  static of(paths: readonly Buffer[]): PathFeed {
    const feed = new PathFeed()
    for (const path of paths) feed.push(path)
    feed.end()
    return feed
  }

  push(path: Buffer): void {
    this.paths.push(path)
    this.wake()
  }

  /** No more paths: every `take` waiting is answered. */
  end(): void {
    this.ended = true
    this.wake()
  }

  /** Files `from` to `from + count - 1` once found (fewer when the feed ends first); undefined when it ends before `from`. */
  async take(from: number, count: number): Promise<Buffer[] | undefined> {
    if (!this.ended && this.paths.length < from + count)
      await new Promise<void>((resolve) => this.waiting.push({ until: from + count, resolve }))
    return from < this.paths.length ? this.paths.slice(from, from + count) : undefined
  }

  /** Answers the takes that have their paths now, or all once the feed ended: not each take at each path. */
  private wake(): void {
    if (this.waiting.length === 0) return
    const ready = this.waiting.filter((w) => this.ended || w.until <= this.paths.length)
    if (ready.length === 0) return
    this.waiting = this.waiting.filter((w) => !ready.includes(w))
    for (const w of ready) w.resolve()
  }
}

/**
 * Keys every file of the feed in chunks of contiguous ids handed to the workers as each finishes one,
 * so a chunk of large files holds up only its own worker. Chunks come back in any order; their
 * segments, put in chunk order, are in id order, so they merge as one builder's would. Fails with
 * INDEX_TOO_LARGE as soon as the segments pass `indexMaxBytes`, and with INDEX_BUILD_FAILED when a
 * worker fails or exits; no worker outlives the call.
 */
export async function keyTree(feed: PathFeed, options: KeyOptions): Promise<KeyedTree> {
  const chunkFiles = options.chunkFiles ?? CHUNK_FILES
  const task = async (chunk: number): Promise<ChunkTask | undefined> => {
    const paths = await feed.take(chunk * chunkFiles, chunkFiles)
    return paths === undefined ? undefined : packChunk(chunk, chunk * chunkFiles, paths)
  }
  const chunks: KeyedChunk[] = []
  const byChunk: Segment[][] = []
  let contentBytes = 0
  let bytes = 0
  const gather = (keyed: KeyedChunk): void => {
    chunks[keyed.chunk] = keyed
    contentBytes += keyed.contentBytes
    byChunk[keyed.chunk] = keyed.segments
    for (const s of keyed.segments) bytes += segmentBytes(s)
    if (bytes > options.indexMaxBytes) tooLarge(options.indexMaxBytes)
  }
  // As many workers as there are chunks, up to the setting: known once the walk has found that many, or ended.
  const found = (await feed.take(0, chunkFiles * (options.workers - 1) + 1))?.length ?? 0
  const workers = Math.min(options.workers, Math.ceil(found / chunkFiles))
  if (workers > 1) await keyInWorkers(workers, task, gather, options)
  else await keyHere(task, gather, options)
  const files = chunks.reduce((n, c) => n + c.flags.length, 0)
  const flags = new Uint8Array(files)
  const times = { seconds: new Float64Array(files), nanos: new Uint32Array(files) }
  let at = 0
  for (const c of chunks) {
    flags.set(c.flags, at)
    times.seconds.set(c.seconds, at)
    times.nanos.set(c.nanos, at)
    at += c.flags.length
  }
  return { flags, times, contentBytes, segments: byChunk.flat() }
}

async function keyHere(
  task: (chunk: number) => Promise<ChunkTask | undefined>,
  gather: (keyed: KeyedChunk) => void,
  options: KeyOptions,
): Promise<void> {
  const keyer = new ChunkKeyer(options.fileMaxBytes, options.segmentPairs)
  let yielded = performance.now()
  const pause = (): Promise<void> | undefined => {
    if (performance.now() - yielded <= YIELD_EVERY_MS) return undefined
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      yielded = performance.now()
    })
  }
  for (let chunk = 0; ; chunk++) {
    throwIfCancelled(options.signal)
    const t = await task(chunk)
    if (t === undefined) return
    gather(await keyer.keyChunk(t, pause))
  }
}

async function keyInWorkers(
  count: number,
  task: (chunk: number) => Promise<ChunkTask | undefined>,
  gather: (keyed: KeyedChunk) => void,
  options: KeyOptions,
): Promise<void> {
  const entry = options.workerEntry ?? workerEntry(import.meta.url)
  const workers: Worker[] = []
  // Set as the promise below is made, which is at once.
  let cancel!: () => void
  try {
    await new Promise<void>((resolve, reject) => {
      cancel = () => reject(cancelled())
      if (options.signal?.aborted === true) return cancel()
      options.signal?.addEventListener('abort', cancel, { once: true })
      let next = 0
      // Workers with no chunk left: when all are, every chunk handed out has come back.
      let idle = 0
      const fail = (what: string, cause?: unknown): void =>
        reject(new IndexError('INDEX_BUILD_FAILED', `a build worker ${what}; no index was written`, { cause }))
      const hand = async (worker: Worker): Promise<void> => {
        const t = await task(next++)
        if (t === undefined) {
          if (++idle === count) resolve()
          return
        }
        worker.postMessage(t, [t.paths.buffer as ArrayBuffer, t.ends.buffer as ArrayBuffer])
      }
      for (let i = 0; i < count; i++) {
        let worker: Worker
        try {
          worker = new Worker(entry, { workerData: { fileMaxBytes: options.fileMaxBytes, segmentPairs: options.segmentPairs } })
        } catch (error) {
          fail(`could not start: ${(error as Error).message}`, error)
          return
        }
        workers.push(worker)
        // A chunk past indexMaxBytes rejects with gather's INDEX_TOO_LARGE.
        worker.on('message', (keyed: KeyedChunk) => {
          Promise.resolve(keyed)
            .then(gather)
            .then(() => hand(worker))
            .catch(reject)
        })
        worker.on('error', (error) => fail(`failed: ${error.message}`, error))
        /* v8 ignore next 2 -- a result of typed arrays always deserializes; this is for a channel that breaks, which no test can make */
        worker.on('messageerror', (error) => fail(`sent a result that could not be read: ${error.message}`, error))
        // After the last chunk the build ends the workers itself, and this rejects a settled promise: nothing.
        worker.on('exit', (code) => fail(`exited with code ${code} before the tree was keyed`))
        hand(worker).catch(reject)
      }
    })
  } finally {
    options.signal?.removeEventListener('abort', cancel)
    await Promise.all(workers.map((w) => w.terminate()))
  }
}
