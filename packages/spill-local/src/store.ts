// createLocalSpillStore: saveText into <root>/<owner>/<id>-<filename>.
import { lstat, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { SpillSaveResult, SpillSource, SpillStore } from '@dsh/core'
import { writeFileAtomic, type SpillContent } from './atomic-write.js'
import { parseLocalSpillOptions, type LocalSpillOptions, type LocalSpillSettings } from './config.js'
import { ensureOwnerDir } from './directories.js'
import { SpillError } from './errors.js'
import { holdsResult, locateResult } from './holds.js'
import { assertInsideRoot, ownerDirName, spillFileName } from './names.js'
import { pruneOwnerDir } from './prune.js'
import { openScratch } from './scratch.js'

/** Options for `createLocalSpillStore`: the plugin's config fields, plus a clock for tests. */
export interface LocalSpillStoreOptions extends LocalSpillOptions {
  /** The clock retention measures file ages against. @default Date.now */
  now?: () => number
}

/** What a model is told to do with a locator: the tools that page through a file it cannot see whole. */
const RETRIEVAL_HINT = 'Use read with offset/limit, or grep this path to search within it.'

/**
 * The filesystem `SpillStore`: each text, whole or streamed, lands atomically at `<root>/<owner>/<id>-<filename>`, in an
 * owner directory the store created (never one it found), and the owner's retention policy runs after
 * every save. Throws `SPILL_INVALID_CONFIG` for bad options.
 */
export function createLocalSpillStore(options: LocalSpillStoreOptions = {}): SpillStore {
  const { now = Date.now, ...rest } = options
  const settings = parseLocalSpillOptions(rest)
  return {
    saveText: ({ text, ...request }) => save({ ...request, content: text }, settings, now),
    saveStream: ({ blocks, ...request }) => save({ ...request, content: blocks }, settings, now),
    openScratch: () => openScratch(settings.root),
    readText: (locator) => readText(locator, settings),
    holds: (path, owner) => holdsResult(settings.root, path, owner),
    locate: (owner, name) => locateResult(settings.root, owner, name),
  }
}

/** A save of either shape: where it goes, who made it, and what it holds. */
interface SaveRequest {
  owner: string
  source: SpillSource
  filename: string
  content: SpillContent
}

async function save(request: SaveRequest, settings: LocalSpillSettings, now: () => number): Promise<SpillSaveResult> {
  const ownerDir = join(settings.root, ownerDirName(request.owner))
  const name = spillFileName(request.filename)
  const locator = join(ownerDir, name)
  assertInsideRoot(settings.root, locator)
  let bytes: number
  try {
    await ensureOwnerDir(settings.root, ownerDir)
    bytes = await writeFileAtomic(locator, request.content)
  } catch (error) {
    throw new SpillError(
      error instanceof SpillError ? error.code : 'SPILL_WRITE_FAILED',
      `could not save the complete ${request.source.toolName} result under ${settings.root} (${(error as Error).message}); only the inline part is available`,
      { cause: error },
    )
  }
  await pruneOwnerDir(ownerDir, { name, bytes }, { ...settings, now: now() })
  return { locator, retrievalHint: RETRIEVAL_HINT }
}

/**
 * A saved text by its locator. Only a regular file inside the root is served (a symbolic link planted
 * there could lead anywhere), so a host may pass a locator from a client without checking it itself.
 */
async function readText(locator: string, settings: LocalSpillSettings): Promise<string> {
  const file = resolve(settings.root, locator)
  assertInsideRoot(settings.root, file, 'read')
  try {
    if (!(await lstat(file)).isFile()) throw new Error('not a regular file')
    return await readFile(file, 'utf8')
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    throw new SpillError(
      missing ? 'SPILL_NOT_FOUND' : 'SPILL_READ_FAILED',
      missing
        ? `no saved result at ${file}: it was never saved here or retention removed it; run the search again`
        : `cannot read the saved result ${file}: ${(error as Error).message}`,
      { cause: error },
    )
  }
}
