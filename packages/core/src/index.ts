// The public surface of @dsh/core. Any new export here becomes public API.
export {
  HarnessError,
  isHarnessError,
  CoreError,
  FsError,
  AccessError,
  errorMessage,
  type CoreErrorCode,
  type FsErrorCode,
  type AccessErrorCode,
} from './errors.js'
export type { JsonValue } from './json.js'
export {
  SearchLineMatch,
  SearchFileMatches,
  SearchMatchesResultView,
  SearchIndexUse,
  SearchPathsResultView,
  SearchResultView,
  viewJsonSchema,
  type ToolCallKind,
  type GenericCallView,
  type ToolCallView,
  type GenericResultView,
  type ToolResultView,
} from './presentation.js'
export {
  defineTool,
  toolJsonSchema,
  type AgentRef,
  type ToolExecContext,
  type ToolOutput,
  type ToolResult,
  type ToolSuccess,
  type ToolFailure,
  type ToolMetadata,
  type ToolSpec,
  type ToolDefinition,
} from './tool.js'
export { ToolRegistry, type ToolListing, type ExecuteOptions, type BatchStep } from './registry.js'
export { TOOL_SEARCH_TOOL_NAME, UNLOADED_NAMES_MAX_BYTES } from './deferral.js'
export { runWithDeadline, type DeadlineOptions } from './timeout.js'
export type { PromptSection, ToolRegistrar, ToolCatalog, SystemPromptRegistrar, Logger, Services, ServiceName } from './services.js'
export { asPlugin, describeIssues, type Plugin, type PluginContext, type PluginModule } from './plugin.js'
export type { ToolAvailability, WithheldTool } from './availability.js'
export { loadHarness, stderrLogger, type LoadOptions, type Harness } from './loader.js'
export {
  ItemRetainer,
  TextRetainer,
  type ItemRetainerOptions,
  type ItemRetention,
  type TextRetainerOptions,
  type TextRetention,
} from './retention.js'
export { configFields, renderConfigCatalog, type ConfigField } from './catalog.js'
export { cleanUntrustedText, escapeHiddenCharacters } from './untrusted-text.js'
export { inotifyBursts, inotifyLimit, reportsEveryChange } from './inotify.js'
export type {
  BashRequest,
  BashSpec,
  BashRunResult,
  BashExecutor,
  CapturedOutput,
  SpillSource,
  SpillSaveRequest,
  SpillStreamRequest,
  SpillSaveResult,
  SpillScratch,
  SpillStore,
  FileKind,
  FileInfo,
  PathStamp,
  DirectoryWatch,
  WatchedChanges,
  FileLine,
  ReadLinesRequest,
  ReadLinesResult,
  FileSystem,
  AccessRequest,
  AccessGrant,
  AccessPolicy,
  IndexQuery,
  IndexFallback,
  IndexAnswer,
  IndexTimesAnswer,
  FileTime,
  SearchIndex,
  SearchWarmUp,
} from './seams.js'
