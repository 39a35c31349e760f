// Writing a spill file whole or not at all: a private temp file, then rename.
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** What a spill file holds: a whole text, or blocks of its UTF-8 bytes written one at a time. */
export type SpillContent = string | Iterable<Uint8Array> | AsyncIterable<Uint8Array>

/**
 * Writes `content` to a temp file beside `target`, then renames it into place, so the name a locator
 * gives only ever holds the whole text; returns the bytes written. A block is written before the next
 * is asked for, so its producer may refill one buffer. The file is 0600 by chmod, not by trusting the
 * umask, since a spilled result can hold whatever a search found. No fsync: a spill lives as long as
 * its session, which a crash ends too.
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

async function writeBlocks(handle: FileHandle, blocks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0
  for await (const block of blocks) {
    // A write may take less than it was given; the rest follows before the next block is asked for.
    for (let at = 0; at < block.length;) at += (await handle.write(block, at, block.length - at)).bytesWritten
    bytes += block.length
  }
  return bytes
}
