// One upstream tool as a registry tool: deferred as every MCP tool is, its call forwarded as it is.
import { z } from 'zod'
import { cleanUntrustedText, defineTool, errorMessage, escapeHiddenCharacters, type ToolDefinition, type ToolOutput } from '@dsh/core'
import type { CallToolResult, Tool } from '@modelcontextprotocol/server'
import { UpstreamError } from './errors.js'
import { ForwardedAnswer } from './forwarded.js'
import { currentHostCall, type HostCall } from './host.js'
import { cleanSchemaText } from './schema-text.js'

/** `_meta` keys an upstream sets on a tool, as Claude Code reads them: never defer it; words to find it by. */
export const ALWAYS_LOAD_META = 'anthropic/alwaysLoad'
export const SEARCH_HINT_META = 'anthropic/searchHint'

/**
 * How long a forwarded call may take, in ms: the SDK's default (60 s) would cut off a build or a test
 * run an upstream tool is doing; the host's own timeout and its cancel still apply.
 */
export const UPSTREAM_CALL_TIMEOUT_MS = 30 * 60_000

/** What a forwarded call needs of the SDK client connected to the upstream. */
export interface UpstreamCaller {
  /** The client's `callTool`. */
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    options: { signal: AbortSignal; timeout: number; host?: HostCall },
  ): Promise<CallToolResult>
  /** Whether an error came from the upstream's JSON-RPC answer (the SDK's `ProtocolError`), rather than from the connection. */
  isProtocolError(error: unknown): error is { code: number; message: string; data?: unknown }
}

/** What a host's tools/list shows of an upstream tool besides its name, description and input schema: the upstream's own, kept. */
export type FrontedToolFields = Pick<Tool, 'title' | 'icons' | 'annotations' | '_meta' | 'outputSchema'>

const frontedFields = new WeakMap<ToolDefinition, FrontedToolFields>()

/** The upstream's own fields of a tool the gateway fronts; undefined for any other tool. */
export function frontedToolFields(tool: ToolDefinition | undefined): FrontedToolFields | undefined {
  return tool === undefined ? undefined : frontedFields.get(tool)
}

/**
 * Registers an upstream tool under `name`. Its arguments are the upstream's to validate (the schema the
 * model sees is the upstream's own, its words cleaned); its result, or the protocol error it answered
 * with, comes back as the upstream sent it. A call the connection could not carry (the upstream exited)
 * is UPSTREAM_UNAVAILABLE. The upstream's text (description, or title when it has none, search hint,
 * the schema's descriptions and titles) is cleaned before anyone reads it:
 * docs/design.md#upstream-text-is-cleaned.
 */
export function defineUpstreamTool(server: string, name: string, tool: Tool, caller: UpstreamCaller): ToolDefinition {
  const hint = tool._meta?.[SEARCH_HINT_META]
  const readOnly = tool.annotations?.readOnlyHint === true
  const definition = defineTool({
    name,
    description: cleanUntrustedText(tool.description ?? tool.title ?? ''),
    parameters: z.looseObject({}),
    inputJsonSchema: cleanSchemaText(tool.inputSchema),
    isMcp: true,
    // An upstream has its own workspace (its roots come from the host through the gateway).
    usesWorkspace: false,
    alwaysLoad: tool._meta?.[ALWAYS_LOAD_META] === true,
    ...(typeof hint === 'string' ? { searchHint: cleanUntrustedText(hint) } : {}),
    isReadOnly: readOnly,
    isConcurrencySafe: readOnly,
    execute: async (args, exec): Promise<ToolOutput> => {
      const host = currentHostCall()
      try {
        const result = await caller.callTool(
          { name: tool.name, arguments: args },
          { signal: exec.signal, timeout: UPSTREAM_CALL_TIMEOUT_MS, ...(host === undefined ? {} : { host }) },
        )
        await host?.progressSent()
        return { content: resultText(result), value: new ForwardedAnswer({ result }) }
      } catch (error) {
        // The upstream answered with an error: it is the host's to see, as sent.
        if (caller.isProtocolError(error)) {
          const { code, message, data } = error
          return { content: message, value: new ForwardedAnswer({ error: { code, message, ...(data === undefined ? {} : { data }) } }) }
        }
        throw new UpstreamError(
          'UPSTREAM_UNAVAILABLE',
          `${escapeHiddenCharacters(tool.name)} on the MCP server ${server} could not complete: ${errorMessage(error)}. Its server may have exited; tool_search shows what is still available.`,
          { cause: error },
        )
      }
    },
  })
  frontedFields.set(definition, frontedFieldsOf(tool))
  return definition
}

/** The fields kept as the upstream sent them, their words cleaned as its description is. */
function frontedFieldsOf(tool: Tool): FrontedToolFields {
  const { title, icons, annotations, _meta, outputSchema } = tool
  return {
    ...(title === undefined ? {} : { title: cleanUntrustedText(title) }),
    ...(icons === undefined ? {} : { icons }),
    ...(annotations === undefined
      ? {}
      : { annotations: { ...annotations, ...(annotations.title === undefined ? {} : { title: cleanUntrustedText(annotations.title) }) } }),
    ...(_meta === undefined ? {} : { _meta }),
    ...(outputSchema === undefined ? {} : { outputSchema: cleanSchemaText(outputSchema) }),
  }
}

/** Whether the cleaning changes the tool's name, description, title or search hint: what hid there is shown. */
export function hidesText(tool: Tool): boolean {
  const hint = tool._meta?.[SEARCH_HINT_META]
  return (
    escapeHiddenCharacters(tool.name) !== tool.name ||
    [tool.description, tool.title, hint].some((text) => typeof text === 'string' && cleanUntrustedText(text) !== text)
  )
}

/** The text blocks of a result, for a reader of the registry's text (the CLI); an MCP host gets the result itself. */
function resultText(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [`[${block.type}]`])).join('\n')
}
