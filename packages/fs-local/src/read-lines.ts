// readFileLines: a window of a local file's lines, streamed through one reused buffer.
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { FsError, type FileKind, type ReadLinesRequest, type ReadLinesResult } from '@dsh/core'
import { throwIfAborted, toFsError } from './errors.js'
import { LineWindow } from './line-window.js'
import { fileKind, statPath } from './stat.js'

/** Bytes read per system call: large enough to amortize the thread-pool round trip, small beside a window. */
export const READ_CHUNK_BYTES = 64 * 1024

// O_NONBLOCK: if a FIFO replaces the file between the stat and the open, the open returns instead of
// waiting for a writer, and the check after it refuses the FIFO.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK

/**
 * Reads a window of a regular file's lines (the `FileSystem.readLines` contract). The file is read
 * `chunkBytes` at a time and the read stops once the window is settled and the binary sniff is done.
 * A request with a non-integer or out-of-range number is a caller's bug: a `RangeError`, not an FsError.
 */
export async function readFileLines(request: ReadLinesRequest, chunkBytes = READ_CHUNK_BYTES): Promise<ReadLinesResult> {
  const { path, signal } = request
  assertWindowNumbers(request)
  throwIfAborted(signal, path)
  // stat first: opening a FIFO waits for a writer, and opening a device can have effects of its own.
  assertRegularFile((await statPath(path)).kind, path)
  let handle: FileHandle
  try {
    handle = await open(path, OPEN_FLAGS)
  } catch (error) {
    throw toFsError(error, path)
  }
  try {
    assertRegularFile(fileKind(await handle.stat()), path)
    return await readWindow(handle, request, chunkBytes)
  } catch (error) {
    throw error instanceof FsError ? error : toFsError(error, path)
  } finally {
    await handle.close()
  }
}

async function readWindow(handle: FileHandle, request: ReadLinesRequest, chunkBytes: number): Promise<ReadLinesResult> {
  const { path, signal, binarySniffBytes } = request
  const window = new LineWindow(request)
  const buffer = Buffer.allocUnsafe(chunkBytes)
  let position = 0
  let settled = false
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position)
    throwIfAborted(signal, path)
    if (bytesRead === 0) return window.end()
    const chunk = buffer.subarray(0, bytesRead)
    if (position < binarySniffBytes && chunk.subarray(0, binarySniffBytes - position).includes(0)) {
      throw new FsError('FS_BINARY', `${path} is binary: a NUL byte is in its first ${binarySniffBytes} bytes`)
    }
    position += bytesRead
    settled ||= window.push(chunk)
    // A window settled early still waits for the sniff: a NUL anywhere in it makes the file binary.
    if (settled && position >= binarySniffBytes) return window.result()
  }
}

function assertRegularFile(kind: FileKind, path: string): void {
  if (kind === 'directory') throw new FsError('FS_IS_DIRECTORY', `${path} is a directory, not a file`)
  if (kind === 'other') throw new FsError('FS_NOT_A_FILE', `${path} is not a regular file (it is a FIFO, socket or device)`)
}

const WINDOW_NUMBERS = [
  ['offset', 1],
  ['limit', 1],
  ['maxLineBytes', 1],
  ['maxBytes', 1],
  ['binarySniffBytes', 0],
] as const

function assertWindowNumbers(request: ReadLinesRequest): void {
  for (const [field, min] of WINDOW_NUMBERS) {
    const value = request[field]
    if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`readLines: ${field} must be an integer ≥ ${min}, got ${value}`)
  }
}
