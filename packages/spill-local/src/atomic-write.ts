// Writing a spill file whole or not at all: a private temp file, then rename.
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** What a spill file holds: a whole text, or blocks of its UTF-8 bytes written one at a time. */
export type SpillContent = string | Iterable<Uint8Array> | AsyncIterable<Uint8Array>

/**
 * Writes `content` to a temp file beside `target`, then renames it into place, so the name a locator
 * gives only ever holds the whole text; returns the bytes written. A block is copied or written before
 * the next is asked for, so its producer may refill one buffer. The file is 0600 by chmod, not by
 * trusting the umask, since a spilled result can hold whatever a search found. No fsync: a spill lives
 * as long as its session, which a crash ends too.
 */
export async function writeFileAtomic(target: string, content: SpillContent): Promise<number> {
  const temp = join(dirname(target), `.tmp-${basename(target)}`)
  try {
    // 'wx' (O_EXCL) never opens an existing file or follows a symlink planted at the temp name.
    const handle = await open(temp, 'wx', 0o600)
    let bytes: number
    try {
      await handle.chmod(0o600)
      bytes = typeof content === 'string' ? await writeText(handle, content) : await writeBlocks(handle, content)
    } finally {
      await handle.close()
    }
    await rename(temp, target)
    return bytes
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

async function writeText(handle: FileHandle, text: string): Promise<number> {
  await handle.writeFile(text, 'utf8')
  return Buffer.byteLength(text)
}

// Blocks are gathered up to this size before a write: each write is a trip through the thread pool,
// which a file's few kilobytes of rows do not pay for (docs/design.md#streamed-spills).
const WRITE_BYTES = 1 << 20

/**
 * Gathers blocks into one buffer while the other is being written: the producer makes the next
 * megabyte on the main thread while the thread pool writes the last, one write in flight at a time
 * and in order. A block of a megabyte or more is written as it is, and waited for, since its producer
 * may refill it.
 */
export async function writeBlocks(handle: FileHandle, blocks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<number> {
  const writer = new OrderedWriter(handle)
  let gathered: Buffer | undefined
  let spare: Buffer | undefined
  let used = 0
  let bytes = 0
  try {
    for await (const block of blocks) {
      bytes += block.length
      if (used > 0 && used + block.length > WRITE_BYTES) {
        await writer.start(gathered!.subarray(0, used))
        ;[gathered, spare] = [spare, gathered]
        used = 0
      }
      // The producer may refill the block once the next is asked for: it is copied or written first.
      if (block.length >= WRITE_BYTES) {
        await writer.start(block)
        await writer.settle()
      } else {
        gathered ??= Buffer.allocUnsafe(WRITE_BYTES)
        gathered.set(block, used)
        used += block.length
      }
    }
    if (used > 0) await writer.start(gathered!.subarray(0, used))
    await writer.settle()
  } catch (error) {
    // A write may still be in flight: it ends before the handle closes.
    await writer.settle().catch(() => undefined)
    throw error
  }
  return bytes
}

/** Writes to a file one at a time, in order; a failed write surfaces at the next `start` or `settle`. */
class OrderedWriter {
  readonly #handle: FileHandle
  #inFlight: Promise<void> | undefined

  constructor(handle: FileHandle) {
    this.#handle = handle
  }

  /** Waits for the write in flight, then starts writing `bytes`, which must stay as they are until it settles. */
  async start(bytes: Uint8Array): Promise<void> {
    await this.settle()
    const write = writeAll(this.#handle, bytes)
    // Observed at once, so a failure while the producer works is not an unhandled rejection.
    write.catch(() => undefined)
    this.#inFlight = write
  }

  /** Waits for the write in flight, if any. */
  async settle(): Promise<void> {
    const write = this.#inFlight
    this.#inFlight = undefined
    await write
  }
}

/** A write may take less than it was given; the rest follows. */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += (await handle.write(bytes, at, bytes.length - at)).bytesWritten
}
