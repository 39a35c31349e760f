// The services plugins inject or provide, by name.
import type { AccessPolicy, BashExecutor, FileSystem, SpillStore } from './seams.js'
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
  systemPrompt: SystemPromptRegistrar
  logger: Logger
  bash: BashExecutor
  spillStore: SpillStore
  fs: FileSystem
  access: AccessPolicy
}

/** A service name. */
export type ServiceName = keyof Services
