// call_tool(name, arguments): a loaded deferred tool called by name, for hosts that keep the first tool list they fetched.
import { z } from 'zod'
import { defineTool, HarnessError, TOOL_SEARCH_TOOL_NAME, type ToolDefinition, type ToolRegistry } from '@dsh/core'

/** The tool's name. */
export const CALL_TOOL_NAME = 'call_tool'

/** What call_tool's schema tells a model. */
export const CALL_TOOL_DESCRIPTION = [
  `Call a deferred tool that ${TOOL_SEARCH_TOOL_NAME} loaded, by its exact name, with the arguments its schema asks for.`,
  `Use it when a tool ${TOOL_SEARCH_TOOL_NAME} loaded is not in your tool list; when it is, call that tool directly.`,
].join(' ')

/** call_tool's arguments. */
export const CallToolArgs = z.strictObject({
  name: z.string().min(1).describe(`The exact name of a deferred tool ${TOOL_SEARCH_TOOL_NAME} loaded, such as mcp__github__create_issue.`),
  arguments: z
    .looseObject({})
    .default({})
    .describe('The arguments for that tool, as its schema (shown when it was loaded) describes them.'),
})

/** A failure of the tool call_tool called, its code kept so the host sees the same failure as a direct call. */
export class DispatchedFailure extends HarnessError {}

/**
 * call_tool over a registry: it runs only deferred tools, through the registry, in the caller's session,
 * so one its session has not loaded fails with TOOL_NOT_LOADED, which says to load it; an upstream's
 * answer comes back as the upstream sent it (docs/design.md#hosts-that-keep-the-first-tool-list).
 */
export function defineCallTool(registry: ToolRegistry): ToolDefinition {
  return defineTool({
    name: CALL_TOOL_NAME,
    description: CALL_TOOL_DESCRIPTION,
    parameters: CallToolArgs,
    // Never deferred: a host that keeps its first list must find it there.
    alwaysLoad: true,
    // The tool it runs asks for a workspace if it needs one (the registry checks it).
    usesWorkspace: false,
    execute: async ({ name, arguments: args }, exec) => {
      if (!registry.deferred().some((tool) => tool.name === name)) {
        const known = registry.get(name) !== undefined
        throw new DispatchedFailure(
          known ? 'CALL_TOOL_NOT_DEFERRED' : 'TOOL_NOT_FOUND',
          known
            ? `${name} is always in your tool list: call it directly, not through ${CALL_TOOL_NAME}`
            : `no deferred tool is named ${name}; find it with ${TOOL_SEARCH_TOOL_NAME} and use the exact name it loads`,
        )
      }
      const result = await registry.execute(name, args, {
        signal: exec.signal,
        nested: true,
        ...(exec.agent === undefined ? {} : { agent: exec.agent }),
      })
      if (result.isError) throw new DispatchedFailure(result.errorCode, result.content)
      return { content: result.content, ...('value' in result ? { value: result.value } : {}) }
    },
  })
}
