// Keys the walk's files in chunks of contiguous ids, one after another.
import { tooLarge } from './errors.js'
import { ChunkKeyer, packChunk, type ChunkTask, type KeyedChunk } from './key-files.js'
import { segmentBytes, type Segment } from './postings.js'

/** Files a chunk holds. */
export const CHUNK_FILES = 4096

// Keying in this thread yields this often, so a warm server running the build still answers its other calls.
const YIELD_EVERY_MS = 20

/** How a tree is keyed; the last two are seams for tests. */
export interface KeyOptions {
  fileMaxBytes: number
  indexMaxBytes: number
  /** Files a chunk holds. @default CHUNK_FILES */
  chunkFiles?: number
  /** Pairs a postings segment holds (see `PostingsBuilder`). */
  segmentPairs?: number
}

/** A tree's keyed files: each file's flag byte, the bytes keyed, and every segment in id order. */
export interface KeyedTree {
  flags: Uint8Array
  contentBytes: number
  segments: Segment[]
}

/**
 * Keys every file, `paths[id]` being file `id`, in chunks of contiguous ids; their segments, put in
 * chunk order, are in id order, so they merge as one builder's would. Fails with INDEX_TOO_LARGE as
 * soon as the segments pass `indexMaxBytes`.
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
  await keyHere(chunks, task, gather, options)
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
