// Claude Code's Glob: the dsh glob under Claude Code's name; its parameters (pattern, path?) are already Claude Code's.
import { createGlobTool, type GlobContext } from '../dsh/glob/tool.js'
import { GLOB_TOOL_DESCRIPTION } from './prompts.js'

/** Glob(pattern, path?): the same tool as glob, named as Claude Code names it. */
export function createClaudeGlobTool(ctx: GlobContext) {
  const tool = createGlobTool(ctx)
  return {
    ...tool,
    name: 'Glob',
    description: GLOB_TOOL_DESCRIPTION,
    presentCall: (args: Parameters<NonNullable<typeof tool.presentCall>>[0]) => ({
      ...tool.presentCall!(args),
      title: `Glob ${args.pattern}`,
    }),
  }
}
