// defineTool: a tool's schema, metadata and execute, and the JSON Schema a model sees.
import { z } from 'zod'
import { CoreError } from './errors.js'
import type { JsonValue } from './json.js'
import type { ToolCallView, ToolResultView } from './presentation.js'

/**
 * The agent session a call runs in, when there is one. `cwd` is its workspace; a host that knows none
 * leaves it out, and calls only tools that do not use one (`usesWorkspace: false`).
 */
export interface AgentRef {
  session: { header: { id: string; cwd?: string } }
}

/** What `execute` receives besides its arguments. */
export interface ToolExecContext {
  /** Aborted on the tool's timeout or the caller's cancellation, whichever comes first. */
  signal: AbortSignal
  /** The tool's registered name. */
  name: string
  /** Unique per call; names spilled artifacts. */
  callId: string
  agent?: AgentRef
  /** True when another tool dispatched this call; no presentation is computed then. */
  nested?: boolean
}

/** What a tool's `execute` returns. */
export interface ToolOutput {
  /** The model-facing text. */
  content: string
  /** The execution-local canonical value; never sent to a model. */
  value?: unknown
  /** JSON a UI card is built from. */
  presentationMeta?: JsonValue
  /**
   * The spill store's locator of the complete result, when the content is a capped page of it: a host
   * that cannot hand the model a path (an MCP client on another machine) serves it by this.
   */
  spilledTo?: string
}

/** A call that succeeded: the model-facing text and what the tool returned beside it. */
export interface ToolSuccess {
  isError: false
  content: string
  value?: unknown
  meta?: JsonValue
  /** The locator of the complete result in the spill store, when the content is a capped page of it. */
  spilledTo?: string
  /** A success has no code. (Declared so a reader of either kind of result may ask.) */
  errorCode?: never
}

/** A call that failed: the model-facing message and its code, and nothing a success carries. */
export interface ToolFailure {
  isError: true
  content: string
  /** The error's code, e.g. `'TOOL_TIMEOUT'` or `'SEARCH_INVALID_PATTERN'`. */
  errorCode: string
  value?: never
  meta?: never
  spilledTo?: never
}

/** What the registry returns for a call: never a throw, and a code exactly when it failed. */
export type ToolResult = ToolSuccess | ToolFailure

/** How a host may schedule a tool, and whether its schema waits for tool_search (docs/design.md#deferred-tools). */
export interface ToolMetadata {
  /** The tool changes nothing outside itself. */
  isReadOnly: boolean
  /** Calls may run in parallel with other concurrency-safe calls. */
  isConcurrencySafe: boolean
  /** Deferred: a session sees only the name until tool_search loads the tool. */
  shouldDefer: boolean
  /** Never deferred, whatever `shouldDefer` or `isMcp` say. */
  alwaysLoad: boolean
  /** Extra keywords tool_search matches, beside the name and description. */
  searchHint?: string
  /** The tool comes from an MCP server; such tools are deferred unless `alwaysLoad`. */
  isMcp: boolean
  /**
   * The tool reads the session's workspace (`agent.session.header.cwd`), so a host must know one
   * before calling it; false for a tool that only finds or forwards tools (docs/design.md#where-a-call-runs).
   */
  usesWorkspace: boolean
}

/** What `defineTool` takes. Parameters are a `z.strictObject`: unknown fields are argument errors. */
export interface ToolSpec<P extends z.ZodObject> extends Partial<ToolMetadata> {
  name: string
  description: string
  parameters: P
  /**
   * The JSON Schema a model sees, for a tool whose arguments another program validates (a tool an MCP
   * server fronts): `parameters` then only needs to accept what that program may be sent. Generated
   * from `parameters` when omitted.
   */
  inputJsonSchema?: Record<string, unknown>
  /** Aborts `exec.signal` after this long; no limit when omitted. */
  timeoutMs?: number
  execute(args: z.output<P>, exec: ToolExecContext): Promise<ToolOutput>
  presentCall?(args: z.output<P>): ToolCallView
  presentResult?(result: ToolResult, args: z.output<P>): ToolResultView | undefined
  /**
   * The JSON Schema of the view `presentResult` builds, declared only by a tool that builds one for
   * every success a host sees (one not dispatched by another tool): MCP's `outputSchema`.
   */
  resultViewSchema?: Record<string, unknown>
}

/** A defined tool: its spec with every metadata flag decided. */
export type ToolDefinition<P extends z.ZodObject = z.ZodObject> = ToolSpec<P> & ToolMetadata

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/

/** Defines a tool; metadata flags default to the conservative side (not read-only, not parallel). */
export function defineTool<P extends z.ZodObject>(spec: ToolSpec<P>): ToolDefinition<P> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new CoreError('TOOL_INVALID_DEFINITION', `tool name ${JSON.stringify(spec.name)} must match ${TOOL_NAME}`)
  }
  if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw new CoreError('TOOL_INVALID_DEFINITION', `tool ${spec.name}: timeoutMs must be a positive integer`)
  }
  return Object.freeze({
    isReadOnly: false,
    isConcurrencySafe: false,
    shouldDefer: false,
    alwaysLoad: false,
    isMcp: false,
    usesWorkspace: true,
    ...spec,
  })
}

/** The JSON Schema a model sees for a tool's parameters: `inputJsonSchema`, else generated from zod, without `$schema`. */
export function toolJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  if (tool.inputJsonSchema !== undefined) return tool.inputJsonSchema
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.parameters) as Record<string, unknown>
  return schema
}
