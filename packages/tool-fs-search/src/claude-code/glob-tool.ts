// Claude Code's Glob: the dsh glob under Claude Code's name; its parameters (pattern, path?) are already Claude Code's.
import type { ToolCallView } from '@dsh/core'

/**
 * Glob(pattern, path?): the tool `glob` is, named as Claude Code names it. The plugin hands the dsh
 * glob in, so this surface never imports the other one (docs/design.md#the-engine-and-its-surfaces).
 */
export function createClaudeGlobTool<T extends { presentCall?(args: { pattern: string }): ToolCallView }>(glob: T) {
  return {
    ...glob,
    name: 'Glob',
    presentCall: (args: { pattern: string }) => ({ ...glob.presentCall!(args), title: `Glob ${args.pattern}` }),
  }
}
