// Keys the walk's files in chunks of contiguous ids: in worker threads, one chunk at a time each, or in this thread when one would do.
import { Worker } from 'node:worker_threads'
import { IndexError, tooLarge } from './errors.js'
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
  /** Files a chunk holds. @default CHUNK_FILES */
  chunkFiles?: number
  /** Pairs a postings segment holds (see `PostingsBuilder`). */
  segmentPairs?: number
  /** The worker's entry. @default workerEntry(import.meta.url) */
  workerEntry?: URL
}

/** A tree's keyed files: each file's flag byte, the bytes keyed, and every segment in id order. */
export interface KeyedTree {
  flags: Uint8Array
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
 * Keys every file, `paths[id]` being file `id`, in chunks of contiguous ids handed to the workers as
 * each finishes one, so a chunk of large files holds up only its own worker. Chunks come back in any
 * order; their segments, put in chunk order, are in id order, so they merge as one builder's would.
 * Fails with INDEX_TOO_LARGE as soon as the segments pass `indexMaxBytes`, and with
 * INDEX_BUILD_FAILED when a worker fails or exits; no worker outlives the call.
 */
export async function keyTree(paths: readonly Buffer[], options: KeyOptions): Promise<KeyedTree> {
  const chunkFiles = options.chunkFiles ?? CHUNK_FILES
  const chunks = Math.ceil(paths.length / chunkFiles)
  const task = (chunk: number): ChunkTask => packChunk(chunk, chunk * chunkFiles, paths.slice(chunk * chunkFiles, (chunk + 1) * chunkFiles))
  const tree: KeyedTree = { flags: new Uint8Array(paths.length), contentBytes: 0, segments: [] }
  const byChunk: Segment[][] = []
  let bytes = 0
  const gather = (keyed: KeyedChunk): void => {
    tree.flags.set(keyed.flags, keyed.chunk * chunkFiles)
    tree.contentBytes += keyed.contentBytes
    byChunk[keyed.chunk] = keyed.segments
    for (const s of keyed.segments) bytes += segmentBytes(s)
    if (bytes > options.indexMaxBytes) tooLarge(options.indexMaxBytes)
  }
  const workers = Math.min(options.workers, chunks)
  if (workers > 1) await keyInWorkers(workers, chunks, task, gather, options)
  else await keyHere(chunks, task, gather, options)
  tree.segments = byChunk.flat()
  return tree
}

async function keyHere(
  chunks: number,
  task: (chunk: number) => ChunkTask,
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
  for (let chunk = 0; chunk < chunks; chunk++) gather(await keyer.keyChunk(task(chunk), pause))
}

async function keyInWorkers(
  count: number,
  chunks: number,
  task: (chunk: number) => ChunkTask,
  gather: (keyed: KeyedChunk) => void,
  options: KeyOptions,
): Promise<void> {
  const entry = options.workerEntry ?? workerEntry(import.meta.url)
  const workers: Worker[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0
      let done = 0
      const fail = (what: string, cause?: unknown): void =>
        reject(new IndexError('INDEX_BUILD_FAILED', `a build worker ${what}; no index was written`, { cause }))
      const hand = (worker: Worker): void => {
        if (next === chunks) return
        const t = task(next++)
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
            .then(() => (++done === chunks ? resolve() : hand(worker)), reject)
        })
        worker.on('error', (error) => fail(`failed: ${error.message}`, error))
        /* v8 ignore next 2 -- a result of typed arrays always deserializes; this is for a channel that breaks, which no test can make */
        worker.on('messageerror', (error) => fail(`sent a result that could not be read: ${error.message}`, error))
        // After the last chunk the build ends the workers itself, and this rejects a settled promise: nothing.
        worker.on('exit', (code) => fail(`exited with code ${code} before the tree was keyed`))
        hand(worker)
      }
    })
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
}
