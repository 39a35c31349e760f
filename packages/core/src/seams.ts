/**
 * The seams a tool reaches the world through. Tools depend on these interfaces only, so a local, a
 * sandboxed (bubblewrap) or a remote (OpenSSH) backend can stand behind them without a tool changing.
 */

/** What a tool asks the bash executor for; `resolve` fills in defaults and applies caps. */
export interface BashRequest {
  /** The shell command line, run with `bash -c` (or the backend's equivalent). */
  command: string
  /** Working directory; the backend's configured cwd when omitted. */
  workdir?: string
  /** Wall-clock limit; the backend's default when omitted, capped by its maximum. */
  timeoutMs?: number
  /** Bytes of stdout to keep (the head); the backend's default when omitted, capped by its maximum. */
  stdoutMaxBytes?: number
  /** Bytes of stderr to keep (the tail); the backend's default when omitted, capped by its maximum. */
  stderrMaxBytes?: number
  /**
   * What to do once stdout passes its cap: `'drain'` keeps reading and counting (the default: the
   * total stays exact), `'kill'` stops the process group at once (for output that is discarded anyway).
   */
  onStdoutOverflow?: 'drain' | 'kill'
  /** Aborting it terminates the whole process group; an already-aborted signal never spawns. */
  signal?: AbortSignal
}

/** A request after `resolve`: every limit decided, the environment chosen. Opaque to tools. */
export interface BashSpec {
  readonly command: string
  readonly workdir: string
  readonly timeoutMs: number
  readonly stdoutMaxBytes: number
  readonly stderrMaxBytes: number
  readonly onStdoutOverflow: 'drain' | 'kill'
  readonly env: Readonly<Record<string, string>>
  readonly signal?: AbortSignal
}

/** One captured stream. */
export interface CapturedOutput {
  /** The kept bytes decoded as UTF-8; invalid sequences become U+FFFD, never an exception. */
  text: string
  /** True when more bytes arrived than were kept. */
  truncated: boolean
  /** Every byte the stream produced (or, after an overflow kill, produced before it stopped). */
  totalBytes: number
}

/** What happened to one run. */
export interface BashRunResult {
  /** The exit code, or null when a signal ended the process. */
  exitCode: number | null
  /** The signal that ended the shell, e.g. `'SIGTERM'`, or null. */
  signal: string | null
  /** True when the request's signal aborted the run. */
  aborted: boolean
  /** True when the run passed its `timeoutMs`. */
  timedOut: boolean
  /** True when stdout passed its cap and `onStdoutOverflow: 'kill'` stopped the run. */
  stdoutOverflowKilled: boolean
  durationMs: number
  /** The head of stdout, up to `stdoutMaxBytes`. */
  stdout: CapturedOutput
  /** The tail of stderr, up to `stderrMaxBytes`: the end of an error is the informative part. */
  stderr: CapturedOutput
}

/** Runs shell commands for tools. Only an implementation of this spawns processes. */
export interface BashExecutor {
  /** Applies defaults, caps and the environment policy; rejects a bad workdir with a typed error. */
  resolve(request: BashRequest): Promise<BashSpec>
  /** Runs a resolved spec to completion, timeout or abort. A shell that cannot start throws. */
  run(spec: BashSpec): Promise<BashRunResult>
}

/** Who produced a spilled text, for the store's bookkeeping and the reader's orientation. */
export interface SpillSource {
  toolName: string
  callId: string
  label: string
}

/** A request to keep a text that was too large to show inline. */
export interface SpillSaveRequest {
  /** Groups saved texts (a session id). A hint: the store sanitizes it. */
  owner: string
  source: SpillSource
  text: string
  /** A name hint such as `grep-results.txt`, never a path: the store decides where the file lands. */
  filename: string
}

/** Where a saved text is and how a model reads it back. */
export interface SpillSaveResult {
  locator: string
  retrievalHint: string
}

/** Keeps oversized tool results so a model can page through them later. */
export interface SpillStore {
  /** Saves the text; fails with a typed error (never partially writes a file the locator names). */
  saveText(request: SpillSaveRequest): Promise<SpillSaveResult>
}
