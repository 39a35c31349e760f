// statPath: what an absolute local path names, following symbolic links.
import type { Stats } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { FileInfo, FileKind } from '@dsh/core'
import { assertAbsolutePath, toFsError } from './errors.js'

/** What `path` names after following symbolic links; a failure is an FsError. */
export async function statPath(path: string): Promise<FileInfo> {
  assertAbsolutePath(path)
  let stats: Stats
  try {
    stats = await stat(path)
  } catch (error) {
    throw toFsError(error, path)
  }
  return { kind: fileKind(stats), sizeBytes: stats.size, mtimeMs: stats.mtimeMs }
}

/** The seam's kind for a stat result: FIFOs, sockets and devices are all `'other'`. */
export function fileKind(stats: Stats): FileKind {
  if (stats.isFile()) return 'file'
  return stats.isDirectory() ? 'directory' : 'other'
}

/** The canonical absolute path of `path`, every symbolic link followed; a failure is an FsError. */
export async function realPath(path: string): Promise<string> {
  assertAbsolutePath(path)
  try {
    return await realpath(path)
  } catch (error) {
    throw toFsError(error, path)
  }
}
