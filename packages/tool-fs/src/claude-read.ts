// Claude Code's Read(file_path, offset?, limit?): the read tool under Claude Code's name and parameter names.
import { defineTool } from '@dsh/core'
import { z } from 'zod'
import { readArgs } from './args.js'
import type { ReadConfig } from './config.js'
import { readDescription } from './prompts.js'
import { executeRead, type ReadDeps } from './read.js'

/** Read's arguments: read's, with `path` named `file_path` as Claude Code names it. */
export function claudeReadArgs(maxLines: number) {
  const { path, offset, limit } = readArgs(maxLines).shape
  return z.strictObject({ file_path: path, offset, limit })
}

/** Read: the same implementation as read; only the names differ. */
export function createClaudeReadTool(deps: ReadDeps, config: ReadConfig) {
  return defineTool({
    name: 'Read',
    description: readDescription(config).replace('`path` is absolute', '`file_path` is absolute'),
    parameters: claudeReadArgs(config.readMaxLines),
    timeoutMs: config.timeoutMs,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'read file contents lines view open cat page',
    execute: ({ file_path, offset, limit }, exec) =>
      executeRead(
        deps,
        config,
        { path: file_path, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) },
        exec,
      ),
    presentCall: (args) => ({ card: 'generic', kind: 'read', title: `Read ${args.file_path}` }),
  })
}
