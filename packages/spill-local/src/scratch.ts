// Scratch files: where a result larger than memory waits, in pieces, until it is ordered and saved.
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { SpillScratch } from '@dsh/core'

/**
 * Opens a scratch file on the first append, in the store's root (on disk, where saved results go; a
 * temp dir may be memory), and unlinks it at once: no name leads to it while it is written, and it
 * goes when it is closed or the process dies, so nothing is left to prune. 'wx' (O_EXCL) with 0600
 * never opens a file planted at the name. Synchronous calls, because a stdout sink is synchronous
 * (docs/design.md#results-bigger-than-memory).
 */
export function openScratch(root: string): SpillScratch {
  let fd: number | undefined
  let size = 0
  let closed = false
  const open = (): number => {
    if (closed) throw new Error('the scratch file is closed')
    if (fd !== undefined) return fd
    mkdirSync(root, { recursive: true, mode: 0o700 })
    const file = join(root, `.scratch-${randomBytes(6).toString('hex')}`)
    fd = openSync(file, 'wx+', 0o600)
    unlinkSync(file)
    return fd
  }
  return {
    get size() {
      return size
    },
    append(bytes) {
      const handle = open()
      const start = size
      // A write may take less than it was given; the rest follows.
      for (let at = 0; at < bytes.length;) at += writeSync(handle, bytes, at, bytes.length - at, start + at)
      size += bytes.length
      return start
    },
    read(offset, length, into) {
      const handle = open()
      const bytes = into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length)
      let at = 0
      while (at < length) {
        const read = readSync(handle, bytes, at, length - at, offset + at)
        if (read === 0) throw new Error(`the scratch file ends before byte ${offset + length}`)
        at += read
      }
      return bytes
    },
    close() {
      closed = true
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    },
  }
}
