/**
 * The error type every package throws for an expected failure: a code from the package's own closed
 * union, a message written for the reader (often a model) that says what to do next, and the low-level
 * error kept as `cause`.
 */
export class HarnessError<Code extends string = string> extends Error {
  /** A stable, machine-readable code from the throwing package's closed union. */
  readonly code: Code

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
  }
}

/** True for any package's `HarnessError`, typed by its code as a string (`instanceof` would type it `any`). */
export function isHarnessError(error: unknown): error is HarnessError<string> {
  return error instanceof HarnessError
}

/** The codes `@dsh/core` itself throws or reports. */
export type CoreErrorCode =
  | 'TOOL_NOT_FOUND'
  | 'TOOL_NOT_LOADED'
  | 'TOOL_NO_WORKSPACE'
  | 'TOOL_DUPLICATE'
  | 'TOOL_INVALID_DEFINITION'
  | 'TOOL_INVALID_ARGUMENTS'
  | 'TOOL_TIMEOUT'
  | 'TOOL_ABORTED'
  | 'TOOL_FAILED'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_CONFIG_INVALID'
  | 'PLUGIN_DEPENDENCY_MISSING'
  | 'PLUGIN_APPLY_FAILED'
  | 'PROMPT_SECTION_DUPLICATE'
  | 'SERVICE_DUPLICATE'

/** An expected failure inside the harness kernel (registry, loader, timeout policy). */
export class CoreError extends HarnessError<CoreErrorCode> {}

/**
 * The codes a `FileSystem` backend or a tool reading through it reports. The seam's contract: every
 * backend maps its failures onto these, so a tool's message does not depend on where the file is.
 */
export type FsErrorCode =
  | 'FS_NOT_FOUND'
  | 'FS_IS_DIRECTORY'
  | 'FS_NOT_A_FILE'
  | 'FS_BINARY'
  | 'FS_OFFSET_PAST_END'
  | 'FS_PERMISSION'
  | 'FS_DENIED'
  | 'FS_INVALID_PATH'
  | 'FS_ABORTED'
  | 'FS_READ_FAILED'

/** An expected failure reading a file through the `FileSystem` seam. */
export class FsError extends HarnessError<FsErrorCode> {}

/** The codes an `AccessPolicy` throws. */
export type AccessErrorCode = 'ACCESS_OUTSIDE_ROOTS' | 'ACCESS_DENIED'

/** A path the access policy does not allow: outside every root, or matched by a deny rule. */
export class AccessError extends HarnessError<AccessErrorCode> {}

/** The message of anything thrown: an Error's message, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
