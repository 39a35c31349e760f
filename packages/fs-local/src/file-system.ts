// createLocalFileSystem: the FileSystem seam over this machine's files.
import type { FileSystem } from '@dsh/core'
import { readFileLines } from './read-lines.js'
import { realPath, statPath } from './stat.js'
import { stampMany } from './stamps.js'
import { watchDirectories } from './watch.js'

/** The local `FileSystem`, for hosts that wire seams by hand; a remote backend returns the same types. */
export function createLocalFileSystem(): FileSystem {
  return {
    stat: statPath,
    readLines: (request) => readFileLines(request),
    realpath: realPath,
    stampMany,
    watchDirectories: (root) => watchDirectories(root),
  }
}
