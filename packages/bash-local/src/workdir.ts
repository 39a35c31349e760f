// Choosing and checking a request's working directory.
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { BashError } from './errors.js'

/**
 * The absolute, existing directory a command runs in: the request's workdir resolved against the
 * configured cwd (itself against the process cwd), or that cwd when the request names none.
 */
export async function resolveWorkdir(requested: unknown, configuredCwd: string | undefined): Promise<string> {
  if (requested !== undefined && (typeof requested !== 'string' || requested === '' || requested.includes('\0'))) {
    throw new BashError('BASH_INVALID_REQUEST', 'workdir must be a non-empty path without NUL characters')
  }
  const base = resolve(configuredCwd ?? '.')
  const workdir = requested === undefined ? base : resolve(base, requested)
  let isDirectory: boolean
  try {
    isDirectory = (await stat(workdir)).isDirectory()
  } catch (error) {
    throw workdirError(workdir, error)
  }
  if (!isDirectory) {
    throw new BashError('BASH_WORKDIR_NOT_DIRECTORY', `workdir ${workdir} is a file, not a directory; run in its parent directory`)
  }
  return workdir
}

function workdirError(workdir: string, error: unknown): BashError {
  const code = (error as NodeJS.ErrnoException).code
  // ENOTDIR: a component of the path is a file, so the directory cannot exist either.
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new BashError('BASH_WORKDIR_MISSING', `workdir ${workdir} does not exist; check the path`, { cause: error })
  }
  return new BashError('BASH_WORKDIR_INACCESSIBLE', `workdir ${workdir} cannot be opened (${code}); choose another directory`, {
    cause: error,
  })
}
