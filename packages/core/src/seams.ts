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
  /**
   * Bytes of stdout to keep (the head); the backend's default when omitted, capped by its maximum. With
   * `stdoutSink` nothing is kept, so the maximum (a bound on memory) does not apply: the request's
   * value stands, and a consumer that bounds its own memory may take output of any size.
   */
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
  /**
   * Receives stdout while the command runs, instead of the executor keeping it: every byte of the head
   * up to `stdoutMaxBytes`, in order, in chunks of any size, each valid only during the call (an
   * executor may reuse its buffer). The result's `stdout.text` is then empty, while `truncated` and
   * `totalBytes` still count every byte. A sink that throws stops the run: the executor ends the
   * process group as for an abort, and `run` rejects with that error once the group is gone. Every
   * backend must honour it (docs/design.md#streamed-stdout).
   */
  stdoutSink?: (chunk: Uint8Array) => void
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
  readonly stdoutSink?: (chunk: Uint8Array) => void
}

/** One captured stream. */
export interface CapturedOutput {
  /**
   * The kept bytes decoded as UTF-8; invalid sequences become U+FFFD, never an exception. Empty for a
   * stdout the request streamed to `stdoutSink`: the sink had the bytes.
   */
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
  /**
   * Why the run ended: `'exit'` on its own; otherwise the executor stopped its process group because
   * the request's signal aborted it (`'abort'`), it passed `timeoutMs` (`'timeout'`), or stdout passed
   * its cap under `onStdoutOverflow: 'kill'` (`'overflow'`).
   */
  stop: 'exit' | 'abort' | 'timeout' | 'overflow'
  durationMs: number
  /** The head of stdout, up to `stdoutMaxBytes` (its bytes went to `stdoutSink` when the request set it). */
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

/**
 * A request to keep a text given as blocks of its UTF-8 bytes: a result too large to build as one
 * string (a million grep matches) is written as it is formatted.
 */
export interface SpillStreamRequest {
  /** Groups saved texts (a session id). A hint: the store sanitizes it. */
  owner: string
  source: SpillSource
  /**
   * The text's UTF-8 bytes, in order. The store is done with a block before it asks for the next, so a
   * producer may refill one buffer for every block. A producer that throws fails the save.
   */
  blocks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>
  /** A name hint such as `grep-results.txt`, never a path: the store decides where the file lands. */
  filename: string
}

/** Where a saved text is and how a model reads it back. */
export interface SpillSaveResult {
  locator: string
  retrievalHint: string
}

/**
 * A scratch file a producer appends to and reads back in any order, gone once closed (or once the
 * process ends). Synchronous, because it is written from a stdout sink, which is.
 */
export interface SpillScratch {
  /** Appends `bytes` (done with them on return); returns the offset they start at. */
  append(bytes: Uint8Array): number
  /**
   * `length` bytes from `offset`: read into `into` when it is large enough (a reader that refills one
   * buffer allocates nothing per read), else into a buffer of their own.
   */
  read(offset: number, length: number, into?: Uint8Array): Uint8Array
  /** Bytes appended so far. */
  readonly size: number
  /** Deletes the file; safe to call again. */
  close(): void
}

/** Keeps oversized tool results so a model can page through them later. */
export interface SpillStore {
  /** Saves the text; fails with a typed error (never partially writes a file the locator names). */
  saveText(request: SpillSaveRequest): Promise<SpillSaveResult>
  /**
   * Saves a text given as blocks of UTF-8 bytes, with `saveText`'s guarantees, holding one block at a
   * time (docs/design.md#streamed-spills).
   */
  saveStream(request: SpillStreamRequest): Promise<SpillSaveResult>
  /**
   * A private scratch file for a result larger than memory while it is produced
   * (docs/design.md#results-bigger-than-memory); optional, since a store that cannot give one still
   * saves what fits in memory.
   */
  openScratch?(): SpillScratch
  /**
   * The text saved under a locator this store issued, for a host that serves it to a client that
   * cannot open the path (MCP's `resources/read`). A locator outside the store fails with a typed error.
   */
  readText(locator: string): Promise<string>
  /**
   * True when an absolute, symlink-free path names a result this store saved for `owner`: a file of
   * the store's own naming, in the owner's directory, which the store made. An access policy lets a
   * session read and search exactly those files, wherever the store keeps them
   * (docs/design.md#the-spill-store-is-exempt-file-by-file); everything else under the store's root
   * is judged like any other path.
   */
  holds(path: string, owner: string): Promise<boolean>
  /**
   * The locator of the result this store saved for `owner` under the file name `name` (the last
   * segment of a locator it issued), or undefined when it holds no such result. Another process using
   * the same store finds a result by it (an MCP `dsh-spill://` link read through a second server);
   * a name that is no name of the store's making, or another owner's file, is undefined, never a path.
   */
  locate(owner: string, name: string): Promise<string | undefined>
}

/** What kind of thing a path names, after following symbolic links. */
export type FileKind = 'file' | 'directory' | 'other'

/** What `FileSystem.stat` reports. */
export interface FileInfo {
  kind: FileKind
  /** Size in bytes (0 for a directory on some backends; meaningful for files). */
  sizeBytes: number
  /** Last modification, milliseconds since the epoch. */
  mtimeMs: number
}

/** A window of lines to read from one file. Every limit is decided by the caller (the read tool's config). */
export interface ReadLinesRequest {
  /** An absolute path; a relative one is `FS_INVALID_PATH` (the tool resolves against the session cwd). */
  path: string
  /** The first line to return, 1-based. */
  offset: number
  /** Lines returned at most. */
  limit: number
  /** Bytes of one line kept; a longer line is cut on a UTF-8 character boundary and marked `cut`. */
  maxLineBytes: number
  /**
   * Bytes of kept line text returned at most over the window (after per-line cuts): the window ends
   * before the line that would pass it, but always holds at least one line when one exists.
   */
  maxBytes: number
  /** Bytes at the start of the file checked for a NUL byte; one found there is `FS_BINARY`. */
  binarySniffBytes: number
  /** Aborting it stops the read (and closes the file) with `FS_ABORTED`. */
  signal?: AbortSignal
}

/** One line of a window. */
export interface FileLine {
  /** 1-based line number. */
  number: number
  /** The kept bytes decoded as UTF-8, invalid sequences as U+FFFD; no line terminator (LF or CRLF). */
  text: string
  /** True when the line was longer than `maxLineBytes` and was cut. */
  cut: boolean
}

/** What `readLines` returns: the window, and what is known of the rest of the file. */
export interface ReadLinesResult {
  lines: FileLine[]
  /** Why the window ended: it reached the end of the file, `limit` lines, or `maxBytes`. */
  stoppedBy: 'end' | 'limit' | 'bytes'
  /**
   * The file's line count when the read reached the end of the file (`stoppedBy: 'end'`, which is also
   * the answer when `offset` is past the end: no lines, and this says how many there are).
   */
  totalLines?: number
  /** True when a returned line held bytes that are not valid UTF-8 (shown as U+FFFD). */
  lossy: boolean
}

/**
 * Reads files for tools (`ctx.fs`). Only an implementation of this touches the filesystem on a tool's
 * behalf, so a sandboxed or remote backend can serve `read` the way its executor serves `grep`. It
 * streams: a window near the start of a huge file costs that window, not the file. Failures are
 * `FsError`s: `FS_NOT_FOUND`, `FS_PERMISSION`, `FS_IS_DIRECTORY` (readLines), `FS_BINARY`,
 * `FS_INVALID_PATH`, `FS_ABORTED`, `FS_READ_FAILED`.
 */
export interface FileSystem {
  /** What an absolute path names, following symbolic links. */
  stat(path: string): Promise<FileInfo>
  /** A window of a regular file's lines. */
  readLines(request: ReadLinesRequest): Promise<ReadLinesResult>
  /** The canonical absolute path, every symbolic link followed (`FS_NOT_FOUND` when a component is missing). */
  realpath(path: string): Promise<string>
  /**
   * Optional: many absolute paths' identities at once, in order, for revalidating a remembered walk
   * (docs/design.md#the-link-scan-is-remembered). `follow: false` describes a final link itself
   * (`lstat`). Never throws for one path: a failure is that path's `kind`.
   */
  stampMany?(paths: readonly string[], options: { follow: boolean }): Promise<PathStamp[]>
  /**
   * Optional: a watch over the directories of the tree at `root` (absolute), for a remembered walk
   * kept by a long-lived process (docs/design.md#a-watched-tree-needs-no-link-stats). Undefined when
   * the file system cannot promise an event for every change (a network one changed from elsewhere).
   */
  watchDirectories?(root: string): Promise<DirectoryWatch | undefined>
}

/**
 * Changes reported since the last look, by directory (the absolute path as watched): the names of the
 * entries that were made, removed, renamed or changed (a directory's own last part when the event was
 * of itself), or `many` when more were named than are kept.
 */
export type WatchedChanges = ReadonlyMap<string, ReadonlySet<string> | 'many'>

/** Watches directories for changes to what they hold (`FileSystem.watchDirectories`). */
export interface DirectoryWatch {
  /** Watches each directory (absolute paths); resolves to those it could not watch (gone, refused, past a limit). */
  add(paths: readonly string[]): Promise<string[]>
  /** Stops watching these directories. */
  remove(paths: readonly string[]): void
  /**
   * The changes since the last call, once every change made before this call is proven reported.
   * Undefined, for good, when that cannot be proven (an event lost or without a name, a watch that
   * failed): the caller revalidates as if it had no watch, and closes this one.
   */
  changes(): Promise<WatchedChanges | undefined>
  /** Stops every watch and frees what the watch holds. */
  close(): void
}

/**
 * What `FileSystem.stampMany` reports of one path: what it names (`link` only without following;
 * `missing` for ENOENT, `loop` for ELOOP, `unknown` for any other failure), and for a path that
 * exists, its device, inode, and modification and change times in nanoseconds, as decimal digits:
 * a directory whose four are unchanged has the same entries (on Linux; see the design note).
 */
export interface PathStamp {
  kind: FileKind | 'link' | 'missing' | 'loop' | 'unknown'
  dev?: string
  ino?: string
  mtimeNs?: string
  ctimeNs?: string
}

/** What a tool asks the access policy about one path it is about to search or read. */
export interface AccessRequest {
  /** The path as the call gave it; a relative one is relative to `cwd`. */
  path: string
  /** The session's working directory: relative roots are relative to it. */
  cwd: string
  /** `search`: a glob or grep target, below which deny rules become exclusions; `read`: one file. */
  purpose: 'search' | 'read'
  /** The session asking: the owner whose spilled results it may reach wherever the store keeps them. */
  session?: string | undefined
  signal?: AbortSignal
  /**
   * The path's real path, when the calling tool has resolved it already (a search's link scan,
   * docs/design.md#symbolic-links): the policy judges it rather than resolve `path` again, and still
   * judges `path` by its own name.
   */
  realPath?: string | undefined
}

/** What the policy allows for one path. */
export interface AccessGrant {
  /** The path with every symbolic link followed (lexically resolved when it does not exist). */
  realPath: string
  /**
   * Globs to exclude from a search of `realPath`, in rg's `--glob` syntax (gitignore-style, matched
   * relative to the search root, without the leading `!`), so a denied file is never opened.
   */
  excludeGlobs: string[]
}

/**
 * Where tools may look and what they must never show (`ctx.get('access')`, optional: without it a
 * tool reaches whatever the executor can). Throws `AccessError`: `ACCESS_OUTSIDE_ROOTS` (the message
 * names the roots) or `ACCESS_DENIED` (it names no rule, so a model learns nothing to route around).
 */
export interface AccessPolicy {
  check(request: AccessRequest): Promise<AccessGrant>
}

/**
 * What the search tools make ready in a workspace before its first search there, for a long-lived
 * process that knows where its calls will run (`ctx.get('searchWarmUp')`, optional; provided by
 * `tool-fs-search`): the content index that covers it (`SearchIndex.prepare`), then the link scan a
 * first search would walk (docs/design.md#a-warm-process-loads-its-index-first). A host with its own
 * provides it up front, among the services it loads the plugins with: `tool-fs-search` then keeps it,
 * and a plugin loaded after it that provides one fails to load (`SERVICE_DUPLICATE`).
 */
export interface SearchWarmUp {
  /**
   * Resolves when done; rejects where the index's own `prepare` does, where the access policy fails to
   * answer (anything but an `AccessError`), or on a fault in the code itself.
   */
  prepare(query: { dir: string; signal: AbortSignal }): Promise<void>
}

/** What a search asks an index (docs/design.md#an-index-chooses-files-rg-decides-matches). */
export interface IndexQuery {
  /** The absolute directory rg searches from; an index answers only for a tree that holds it. */
  dir: string
  /** The pattern exactly as rg gets it after `-e`. */
  pattern: string
  /** rg runs with `--ignore-case`. */
  caseInsensitive: boolean
  /** rg runs with `--multiline`: a match may span lines. */
  multiline: boolean
  /**
   * Symbolic links below `dir` that rg follows, by path from `dir`: the index holds no path through a
   * link, so everything rg reaches through one is read. @default []
   */
  followedLinks?: ReadonlyArray<{ path: string; directory: boolean }>
  /**
   * Given when the caller knows, from rg's own file list (`rg --files`) taken with the search's flags
   * and still valid, which files below `dir` rg's walk reaches: for a path from `dir` ('/'-separated,
   * raw bytes as a latin1 string, exactly as the index holds names) the path rg prints for it (and
   * would be given as an argument), or undefined when rg's walk does not reach it. Without it no file
   * is named (`namedFile` undefined): rg skips, for a path it is given, the ignore rules and globs its
   * walk obeys, so only the caller can say which files its walk would search
   * (docs/design.md#a-plan-names-what-rgs-walk-would-search). @default undefined
   */
  walked?: (local: string) => string | undefined
  signal: AbortSignal
}

/** Why a search reads the whole tree although an index may exist: each is counted and shown. */
export type IndexFallback = 'no-index' | 'refused' | 'unreducible' | 'broad' | 'changed' | 'names' | 'freshness'

/**
 * An index's answer. `candidates`: rg searches the files named in `namedFile` by name, and walks `dir`
 * with `ignoreFile` added as its lowest-precedence ignore file, which keeps it from every file the
 * index proved cannot match and unchanged since it was built, and from every file named; every other
 * file is searched as in a full scan. `full-scan`: no such proof.
 */
export type IndexAnswer =
  | {
      kind: 'candidates'
      /**
       * An absolute path for rg's `--ignore-file`; valid until `release()`. Undefined when nothing is
       * left for rg to walk: every candidate is named, and no changed entry, followed link or unread
       * directory is to be read (only ever when the query gave `walked`).
       */
      ignoreFile: string | undefined
      /**
       * An absolute path of a file of NUL-terminated paths, each as `walked` returned it, that rg
       * searches by name; valid until `release()`. Undefined when none is named.
       */
      namedFile: string | undefined
      /** How many paths `namedFile` holds (0 without one). */
      named: number
      /** Files the index holds under `dir`. */
      indexedFiles: number
      /** Indexed files whose contents may match. */
      candidates: number
      /** Files and directories changed since the index was built, searched whatever the index says. */
      changed: number
      release(): Promise<void>
    }
  | { kind: 'full-scan'; reason: IndexFallback; detail: string }

/** A file's modification time as the kernel keeps it: whole seconds (negative before 1970) and the nanoseconds after them. */
export interface FileTime {
  seconds: number
  nanos: number
}

/**
 * An index's answer to glob (docs/design.md#glob-reads-times-from-the-index). `times`: `timeOf` gives
 * the modification time of a file rg listed (its path's raw bytes, from `dir`), `recorded` when the
 * index recorded it and proves it unchanged since, `read` when it was read now, or why it could not be
 * read (the file is gone). `full-scan`: no such proof; glob reads every file's time itself.
 */
export type IndexTimesAnswer =
  | {
      kind: 'times'
      /** Files the index holds under `dir`. */
      indexedFiles: number
      /** Files and directories changed since the index was built: what lies there is read, not recorded. */
      changed: number
      timeOf: (name: Uint8Array, start: number, end: number, out: FileTime) => 'recorded' | 'read' | { unreadable: string }
    }
  | { kind: 'full-scan'; reason: IndexFallback; detail: string }

/**
 * A content index in front of rg (`ctx.get('searchIndex')`, optional). It only narrows which files rg
 * opens; rg, with the same command, decides every match, so an answer with it equals one without.
 * Local today (`@dsh/index-local`); a zoekt server can stand behind it (its file names become the
 * candidates).
 */
export interface SearchIndex {
  plan(query: IndexQuery): Promise<IndexAnswer>
  /**
   * Optional: a mark for `dir` (absolute) that a warm process's watcher gives only while it proves
   * nothing below `dir` changed since the index was built (no entry added, removed, renamed or
   * written), undefined when it cannot vouch. Two equal marks, the first taken before a listing of the
   * tree and the second now, prove the listing still holds: a search may skip checking it again
   * (docs/design.md#a-quiet-tree-needs-no-link-revalidation).
   */
  unchangedMark?(query: { dir: string; signal: AbortSignal }): Promise<string | undefined>
  /**
   * Optional: a mark for `dir` (absolute), as `unchangedMark`, that the watcher gives while it proves
   * that no ignore file (`.gitignore`, `.ignore`, `.rgignore`) and no VCS directory below `dir` changed
   * since the index was built: what rg's walk reaches among the files that did not change is then what
   * it was. Equal marks before and after a listing of rg's walk, and now, let a plan name the files of
   * that listing it holds unchanged (docs/design.md#a-list-outlives-changes-that-are-walked).
   */
  walkMark?(query: { dir: string; signal: AbortSignal }): Promise<string | undefined>
  /**
   * Optional: makes ready, ahead of the first search, what a search of `dir` (absolute) would load
   * (the index that covers it, a watcher of its tree), for a long-lived process that knows where its
   * searches will run. Resolves when done, or at once when there is nothing to do; never rejects.
   */
  prepare?(query: { dir: string; signal: AbortSignal }): Promise<void>
  /**
   * Optional: the modification times of the files under `dir` (absolute), for glob's newest-first
   * listing, when the index can prove which it recorded still hold.
   */
  times?(query: { dir: string; signal: AbortSignal }): Promise<IndexTimesAnswer>
}
