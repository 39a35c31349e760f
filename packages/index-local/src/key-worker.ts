// A build worker's entry: keys each chunk it is sent and sends the result back, its buffers transferred (see key-pool.ts).
import { parentPort, workerData } from 'node:worker_threads'
import { ChunkKeyer, chunkTransfers, type ChunkTask } from './key-files.js'

const { fileMaxBytes, segmentPairs } = workerData as { fileMaxBytes: number; segmentPairs: number | undefined }
const keyer = new ChunkKeyer(fileMaxBytes, segmentPairs)
const port = parentPort!
port.on('message', (task: ChunkTask) => {
  keyer
    .keyChunk(task, () => undefined)
    .then(
      (keyed) => port.postMessage(keyed, chunkTransfers(keyed)),
      // Thrown outside the promise, as an uncaught exception: the build sees it as the worker's `error`
      // event whatever --unhandled-rejections says.
      (error: unknown) =>
        setImmediate(() => {
          throw error
        }),
    )
})
