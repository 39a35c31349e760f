// How the local provider turns a bad path or a failed system call into the seam's FsError codes.
import { isAbsolute } from 'node:path'
import { FsError, type FsErrorCode } from '@dsh/core'

/** The errno codes with an FsError code of their own; every other failure is `FS_READ_FAILED`. */
const ERRNO_CODES = new Map<string | undefined, FsErrorCode>([
  ['ENOENT', 'FS_NOT_FOUND'],
  // A path component that is a file (`/etc/hosts/x`): nothing exists at the path either.
  ['ENOTDIR', 'FS_NOT_FOUND'],
  ['EACCES', 'FS_PERMISSION'],
  ['EPERM', 'FS_PERMISSION'],
])

/** Throws `FS_INVALID_PATH` unless the path is absolute and free of NUL (which no system call accepts). */
export function assertAbsolutePath(path: string): void {
  if (path.includes('\0')) throw new FsError('FS_INVALID_PATH', `the path ${JSON.stringify(path)} contains a NUL character`)
  if (!isAbsolute(path)) throw new FsError('FS_INVALID_PATH', `the path ${JSON.stringify(path)} is not absolute`)
}

/** The FsError for a failed system call on `path`; the system error rides as `cause`. */
export function toFsError(error: unknown, path: string): FsError {
  const code = ERRNO_CODES.get((error as NodeJS.ErrnoException).code) ?? 'FS_READ_FAILED'
  const message =
    code === 'FS_NOT_FOUND'
      ? `${path} does not exist`
      : code === 'FS_PERMISSION'
        ? `permission denied: ${path}`
        : `cannot read ${path}: ${(error as Error).message}`
  return new FsError(code, message, { cause: error })
}

/** Throws `FS_ABORTED` when the signal has fired; the signal's reason rides as `cause`. */
export function throwIfAborted(signal: AbortSignal | undefined, path: string): void {
  if (signal?.aborted === true) throw new FsError('FS_ABORTED', `reading ${path} was cancelled`, { cause: signal.reason })
}
