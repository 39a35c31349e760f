// The read tool: resolve the path, read one window through the fs seam, number it and say how to read on.
import { isAbsolute, resolve } from 'node:path/posix'
import {
  AccessError,
  defineTool,
  FsError,
  type AccessPolicy,
  type FileSystem,
  type ReadLinesResult,
  type ToolExecContext,
  type ToolOutput,
} from '@dsh/core'
import { readArgs, type ReadArgs } from './args.js'
import { BINARY_SNIFF_BYTES, type ReadConfig } from './config.js'
import { readDescription } from './prompts.js'
import { offsetPastEnd, readFailure } from './read-errors.js'
import { formatReadPage, shownPath } from './read-format.js'

/** What a read call returns as its value (never sent to a model). */
export interface ReadValue {
  /** The absolute path read. */
  path: string
  offset: number
  /** How many lines the page shows. */
  lines: number
  /** The page's lines as read: no terminators or numbers, each cut at `readMaxLineBytes`, invalid UTF-8 as U+FFFD. */
  lineTexts: string[]
  /** Where the next page starts, when the file goes on. */
  nextOffset?: number
  /** The file's line count, when the page reached its end. */
  totalLines?: number
}

/** What the read tool reads through: the file system, and the access policy when the host loads one. */
export interface ReadDeps {
  fs: FileSystem
  access: () => AccessPolicy | undefined
}

/** Runs one read call end to end. */
export async function executeRead(deps: ReadDeps, config: ReadConfig, args: ReadArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const path = resolveReadPath(args.path, exec)
  // The file read is the one the policy judged: its real path, every link followed.
  const target = await allowedPath(deps.access(), path, exec)
  const offset = args.offset ?? 1
  let result: ReadLinesResult
  try {
    result = await deps.fs.readLines({
      path: target,
      offset,
      limit: args.limit ?? config.readMaxLines,
      maxLineBytes: config.readMaxLineBytes,
      maxBytes: config.readMaxBytes,
      binarySniffBytes: BINARY_SNIFF_BYTES,
      signal: exec.signal,
    })
  } catch (error) {
    throw readFailure(error, path, exec)
  }
  const last = result.lines.at(-1)
  if (last === undefined) {
    // No line only at the end of the file: an empty file read from the top, or an offset past the end.
    if (offset > 1) throw offsetPastEnd(path, offset, result.totalLines!)
    return { content: `${shownPath(path)} is empty.`, value: { path, offset, lines: 0, lineTexts: [], totalLines: 0 } satisfies ReadValue }
  }
  const value: ReadValue = {
    path,
    offset,
    lines: result.lines.length,
    lineTexts: result.lines.map((line) => line.text),
    ...(result.stoppedBy === 'end' ? { totalLines: result.totalLines! } : { nextOffset: last.number + 1 }),
  }
  const content = formatReadPage({ path, offset, result, maxLineBytes: config.readMaxLineBytes, maxBytes: config.readMaxBytes })
  return { content, value }
}

/** The absolute path a call means: a relative one is relative to the session's working directory. */
function resolveReadPath(path: string, exec: ToolExecContext): string {
  if (path.includes('\0')) throw new FsError('FS_INVALID_PATH', 'the path contains a NUL character, which no file name can hold.')
  if (isAbsolute(path)) return resolve(path)
  const cwd = exec.agent?.session.header.cwd
  if (cwd === undefined) {
    throw new FsError('FS_INVALID_PATH', `${shownPath(path)} is relative and this call has no working directory; give an absolute path.`)
  }
  return resolve(cwd, path)
}

/**
 * The path the policy allows, or its refusal. A denied file is an FsError like any other unreadable
 * one; a path outside the roots keeps the policy's error, which names the roots to choose from.
 */
async function allowedPath(access: AccessPolicy | undefined, path: string, exec: ToolExecContext): Promise<string> {
  if (access === undefined) return path
  const cwd = exec.agent?.session.header.cwd
  if (cwd === undefined)
    throw new FsError(
      'FS_INVALID_PATH',
      'this call has no session working directory, which the access roots are relative to; read runs only in a session.',
    )
  try {
    return (await access.check({ path, cwd, purpose: 'read', session: exec.agent?.session.header.id, signal: exec.signal })).realPath
  } catch (error) {
    if (error instanceof AccessError && error.code === 'ACCESS_DENIED')
      throw new FsError('FS_DENIED', `${shownPath(path)} is excluded by this session's access rules; it cannot be read.`, { cause: error })
    throw error
  }
}

/** The read tool: read-only and safe to run beside other calls. */
export function createReadTool(deps: ReadDeps, config: ReadConfig) {
  return defineTool({
    name: 'read',
    description: readDescription(config),
    parameters: readArgs(config.readMaxLines),
    timeoutMs: config.timeoutMs,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'read file contents lines view open cat page',
    execute: (args, exec) => executeRead(deps, config, args, exec),
    presentCall: (args) => ({ card: 'generic', kind: 'read', title: `read ${args.path}`, ...callDetail(args) }),
  })
}

/** The window a call asks for, when it asks for one. */
function callDetail({ offset, limit }: ReadArgs): { detail?: string } {
  if (limit !== undefined) return { detail: `lines ${offset ?? 1}–${(offset ?? 1) + limit - 1}` }
  return offset === undefined ? {} : { detail: `from line ${offset}` }
}
