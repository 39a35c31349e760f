// The services plugins inject or provide, by name.
import type { ToolAvailability } from './availability.js'
import type { AccessPolicy, BashExecutor, FileSystem, SearchIndex, SearchWarmUp, SpillStore } from './seams.js'
import type { ToolDefinition } from './tool.js'

/** A system-prompt section a plugin contributes, optionally about one tool. */
export interface PromptSection {
  /** Unique among sections, e.g. `'tool-fs-search/grep'`. */
  id: string
  /** The tool this section describes, when it describes one. */
  tool?: string
  text: string
}

/** Where plugins register tools. */
export interface ToolRegistrar {
  register(tool: ToolDefinition): void
}

/**
 * The registry's discovery side, for a tool that finds and loads deferred tools (tool_search). The
 * registry itself implements it, so what a search loads is what the session's listing and dispatch read.
 */
export interface ToolCatalog {
  /** The tool registered under a name, deferred or not. */
  get(name: string): ToolDefinition | undefined
  /** Every deferred tool in registration order, whether or not a session has loaded it. */
  deferred(): ToolDefinition[]
  /** Adds deferred tools to a session's listing and lets it call them; a name not deferred is already there. */
  loadDeferred(sessionId: string, names: readonly string[]): void
  /** MCP servers still connecting, whose tools may not be registered yet; sorted. */
  pendingServers(): string[]
  /** Resolves once no MCP server is connecting, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  serversConnected(timeoutMs: number, signal?: AbortSignal): Promise<void>
  /** Sets how many bytes of unloaded deferred tools' names tool_search's listing carries. */
  limitUnloadedNames(maxBytes: number): void
}

/** Where plugins add system-prompt sections. */
export interface SystemPromptRegistrar {
  add(section: PromptSection): void
}

/** A leveled logger; the host decides where lines go. */
export interface Logger {
  warn(message: string): void
  info(message: string): void
}

/**
 * Every service a plugin can inject or `get`, by name. A plugin that provides a new service extends
 * this interface by declaration merging.
 */
export interface Services {
  tools: ToolRegistrar
  toolCatalog: ToolCatalog
  systemPrompt: SystemPromptRegistrar
  toolAvailability: ToolAvailability
  logger: Logger
  bash: BashExecutor
  spillStore: SpillStore
  fs: FileSystem
  access: AccessPolicy
  searchIndex: SearchIndex
  searchWarmUp: SearchWarmUp
}

/** A service name. */
export type ServiceName = keyof Services
