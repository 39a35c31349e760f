// ToolRegistry: tools and prompt sections, the tools each session has loaded, and execution that turns every failure into a result.
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { isDeferredTool, notLoadedError, TOOL_SEARCH_TOOL_NAME, UNLOADED_NAMES_MAX_BYTES, unloadedToolsSection } from './deferral.js'
import { CoreError, errorMessage, isHarnessError } from './errors.js'
import { describeIssues } from './plugin.js'
import type { ToolResultView } from './presentation.js'
import type { PromptSection, SystemPromptRegistrar, ToolCatalog, ToolRegistrar } from './services.js'
import { runWithDeadline } from './timeout.js'
import { toolJsonSchema, type AgentRef, type ToolDefinition, type ToolFailure, type ToolMetadata, type ToolResult } from './tool.js'

/** One tool as a host or a model sees it. */
export interface ToolListing extends ToolMetadata {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  timeoutMs?: number
  promptSections: PromptSection[]
  /** The JSON Schema of the result view the tool builds for every success, when it declares one. */
  resultViewSchema?: Record<string, unknown>
}

/** The per-call options of `execute`. */
export interface ExecuteOptions {
  signal?: AbortSignal
  /** Defaults to a fresh UUID. */
  callId?: string
  agent?: AgentRef
  nested?: boolean
}

/** A step of a batch: calls that may run at the same time. */
export interface BatchStep {
  mode: 'parallel' | 'serial'
  /** Indexes into the batch, in order. */
  calls: number[]
}

/**
 * Holds tools and prompt sections, and executes calls so that no call can crash the host. A host with
 * sessions lists `listFor(session)` and passes the session in `ExecuteOptions.agent`: deferred tools
 * then stay out of the listing, and cannot be called, until tool_search loads them for that session
 * (docs/design.md#deferred-tools). A host without sessions lists `list()` and calls anything.
 */
export class ToolRegistry implements ToolRegistrar, SystemPromptRegistrar, ToolCatalog {
  readonly #tools = new Map<string, ToolDefinition>()
  readonly #sections = new Map<string, PromptSection>()
  /** Session id → the deferred tools it loaded, in load order. */
  readonly #loaded = new Map<string, Set<string>>()
  /** One entry per `awaitServer` call still connecting. */
  readonly #connecting = new Set<{ server: string; connecting: Promise<unknown> }>()
  #unloadedNamesMaxBytes = UNLOADED_NAMES_MAX_BYTES

  register(tool: ToolDefinition): void {
    if (this.#tools.has(tool.name)) throw new CoreError('TOOL_DUPLICATE', `a tool named ${tool.name} is already registered`)
    this.#tools.set(tool.name, tool)
  }

  add(section: PromptSection): void {
    if (this.#sections.has(section.id)) {
      throw new CoreError('PROMPT_SECTION_DUPLICATE', `a prompt section with id ${section.id} is already registered`)
    }
    this.#sections.set(section.id, section)
  }

  /**
   * Removes a tool (its MCP server went away): it leaves every listing, every session's loads and the
   * catalog, and a call to it is TOOL_NOT_FOUND. Returns whether a tool had that name.
   */
  unregister(name: string): boolean {
    for (const loaded of this.#loaded.values()) loaded.delete(name)
    return this.#tools.delete(name)
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name)
  }

  /** Every prompt section, in registration order. */
  sections(): PromptSection[] {
    return [...this.#sections.values()]
  }

  /**
   * Every tool in registration order, deferred ones included, with its JSON Schema and the prompt
   * sections about it: the view for a host without sessions, whose calls nothing defers.
   */
  list(): ToolListing[] {
    return [...this.#tools.values()].map((tool) => this.#listing(tool, []))
  }

  /**
   * The tools a session's model is shown: every tool not deferred, and the deferred ones the session
   * has loaded. While some deferred tools are not loaded, tool_search's listing carries a section that
   * names them.
   */
  listFor(sessionId: string): ToolListing[] {
    const loaded = this.#loaded.get(sessionId)
    const unloaded = this.deferred()
      .map((tool) => tool.name)
      .filter((name) => loaded?.has(name) !== true)
    const extra = unloaded.length === 0 ? [] : [unloadedToolsSection(unloaded, this.#unloadedNamesMaxBytes)]
    return [...this.#tools.values()]
      .filter((tool) => !this.#defers(tool) || loaded?.has(tool.name) === true)
      .map((tool) => this.#listing(tool, tool.name === TOOL_SEARCH_TOOL_NAME ? extra : []))
  }

  /** Every deferred tool in registration order. Nothing is deferred unless tool_search is registered to load it. */
  deferred(): ToolDefinition[] {
    return [...this.#tools.values()].filter((tool) => this.#defers(tool))
  }

  /** Loads deferred tools for a session; a name that is not deferred is already listed and is skipped. */
  loadDeferred(sessionId: string, names: readonly string[]): void {
    const unknown = names.filter((name) => !this.#tools.has(name))
    if (unknown.length > 0) throw new CoreError('TOOL_NOT_FOUND', `cannot load ${unknown.join(', ')}: no tool has that name`)
    const loaded = this.#loaded.get(sessionId) ?? new Set<string>()
    for (const name of names) if (this.#defers(this.#tools.get(name)!)) loaded.add(name)
    // A session that loaded nothing deferred holds no entry to forget.
    if (loaded.size > 0) this.#loaded.set(sessionId, loaded)
  }

  /** The deferred tools a session has loaded, in load order; a host compares counts to see its listing change. */
  loadedDeferred(sessionId: string): string[] {
    return [...(this.#loaded.get(sessionId) ?? [])]
  }

  /** Forgets what a session loaded, once it has ended: a host serving many sessions keeps only the open ones. */
  forgetSession(sessionId: string): void {
    this.#loaded.delete(sessionId)
  }

  /** The sessions that have loaded deferred tools and are not forgotten, in the order they first loaded. */
  sessionsWithLoads(): string[] {
    return [...this.#loaded.keys()]
  }

  /** Sets how many bytes of unloaded deferred tools' names tool_search's listing carries (`unloadedToolsSection`). */
  limitUnloadedNames(maxBytes: number): void {
    this.#unloadedNamesMaxBytes = maxBytes
  }

  /** Counts an MCP server as connecting until `connecting` settles, so a search that finds nothing can name it, or wait. */
  awaitServer(server: string, connecting: PromiseLike<unknown>): void {
    const settle = (): void => void this.#connecting.delete(entry)
    const entry = { server, connecting: Promise.resolve(connecting).then(settle, settle) }
    this.#connecting.add(entry)
  }

  /** Resolves once no MCP server is connecting, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  async serversConnected(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#connecting.size === 0) return
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const stopped = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs)
      onAbort = resolve
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    try {
      await Promise.race([Promise.all([...this.#connecting].map((entry) => entry.connecting)), stopped])
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort!)
    }
  }

  /** The MCP servers still connecting, sorted, each once. */
  pendingServers(): string[] {
    return [...new Set([...this.#connecting].map((entry) => entry.server))].sort()
  }

  /**
   * Plans how a batch of calls may run: consecutive concurrency-safe calls share a parallel step, any
   * other call (or an unknown tool) runs alone, and steps keep the batch's order.
   */
  planBatch(calls: readonly { name: string }[]): BatchStep[] {
    const steps: BatchStep[] = []
    calls.forEach((call, index) => {
      const safe = this.#tools.get(call.name)?.isConcurrencySafe === true
      const last = steps.at(-1)
      if (safe && last?.mode === 'parallel') last.calls.push(index)
      else steps.push({ mode: safe ? 'parallel' : 'serial', calls: [index] })
    })
    return steps
  }

  /** Validates the arguments and runs the tool under its timeout; every failure is an `isError` result. */
  async execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolResult> {
    const tool = this.#tools.get(name)
    if (tool === undefined) {
      const known = [...this.#tools.keys()].join(', ') || 'none'
      return failure(new CoreError('TOOL_NOT_FOUND', `no tool named ${name}; registered tools: ${known}`))
    }
    const sessionId = options.agent?.session.header.id
    if (sessionId !== undefined && this.#defers(tool) && this.#loaded.get(sessionId)?.has(name) !== true) {
      return failure(notLoadedError(name))
    }
    if (tool.usesWorkspace && options.agent !== undefined && options.agent.session.header.cwd === undefined) {
      return failure(
        new CoreError('TOOL_NO_WORKSPACE', `${name} searches a workspace, and this session has none: the host named no directory`),
      )
    }
    const parsed = tool.parameters.safeParse(args)
    if (!parsed.success) return failure(invalidArguments(name, parsed.error))
    try {
      const output = await runWithDeadline(
        (signal) =>
          tool.execute(parsed.data, {
            signal,
            name,
            callId: options.callId ?? randomUUID(),
            ...(options.agent === undefined ? {} : { agent: options.agent }),
            ...(options.nested === undefined ? {} : { nested: options.nested }),
          }),
        { timeoutMs: tool.timeoutMs, signal: options.signal, label: `tool ${name}` },
      )
      return {
        content: output.content,
        isError: false,
        ...('value' in output ? { value: output.value } : {}),
        ...(output.presentationMeta === undefined ? {} : { meta: output.presentationMeta }),
        ...(output.spilledTo === undefined ? {} : { spilledTo: output.spilledTo }),
      }
    } catch (error) {
      return failure(error)
    }
  }

  /** The result view a tool builds for a result, or undefined when it has none or its presenter throws. */
  present(name: string, args: unknown, result: ToolResult): ToolResultView | undefined {
    const tool = this.#tools.get(name)
    const parsed = tool?.parameters.safeParse(args)
    if (tool?.presentResult === undefined || parsed?.success !== true) return undefined
    try {
      return tool.presentResult(result, parsed.data)
    } catch {
      return undefined
    }
  }

  /** Deferral needs a way back: without tool_search registered, nothing could load a deferred tool. */
  #defers(tool: ToolDefinition): boolean {
    return isDeferredTool(tool) && this.#tools.has(TOOL_SEARCH_TOOL_NAME)
  }

  #listing(tool: ToolDefinition, extraSections: readonly PromptSection[]): ToolListing {
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: toolJsonSchema(tool),
      ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
      isReadOnly: tool.isReadOnly,
      isConcurrencySafe: tool.isConcurrencySafe,
      shouldDefer: tool.shouldDefer,
      alwaysLoad: tool.alwaysLoad,
      ...(tool.searchHint === undefined ? {} : { searchHint: tool.searchHint }),
      isMcp: tool.isMcp,
      usesWorkspace: tool.usesWorkspace,
      promptSections: [...this.sections().filter((s) => s.tool === tool.name), ...extraSections],
      ...(tool.resultViewSchema === undefined ? {} : { resultViewSchema: tool.resultViewSchema }),
    }
  }
}

function invalidArguments(name: string, error: z.ZodError): CoreError {
  return new CoreError('TOOL_INVALID_ARGUMENTS', `invalid arguments for ${name}: ${describeIssues(error)}`, { cause: error })
}

function failure(error: unknown): ToolFailure {
  if (isHarnessError(error)) return { content: error.message, isError: true, errorCode: error.code }
  return { content: `tool failed unexpectedly: ${errorMessage(error)}`, isError: true, errorCode: 'TOOL_FAILED' }
}
