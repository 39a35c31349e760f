import type {
  BashExecutor,
  BashRequest,
  BashRunResult,
  BashSpec,
  SpillSaveRequest,
  SpillScratch,
  SpillStore,
  SpillStreamRequest,
} from '@dsh/core'

/** What a scripted run returns; unspecified fields are a clean exit 0 with no output. */
export interface Scripted {
  exitCode?: number | null
  signal?: string | null
  /** A string is written as UTF-8; bytes as they are (for output that is not valid UTF-8). */
  stdout?: string | Uint8Array
  stderr?: string
  stop?: BashRunResult['stop']
  stdoutTruncated?: boolean
  stderrTruncated?: boolean
}

/** A bash executor that records every request and spec and answers from a script: the seam, faked. */
export class FakeBash implements BashExecutor {
  readonly requests: BashRequest[] = []
  readonly specs: BashSpec[] = []
  resolveError: Error | undefined
  runError: Error | undefined
  /** The executor's ceiling on stdoutMaxBytes, applied by `resolve` as bash-local does. */
  maxStdoutMaxBytes = Number.MAX_SAFE_INTEGER
  /** The size of the chunks a stdout sink receives: small, so a parser meets records split every way. */
  stdoutChunkBytes = 3
  /** When false, a link scan finds no link without asking the script: most tests search trees without links. */
  scriptsLinkScans = false

  constructor(private readonly script: (command: string, spec: BashSpec) => Scripted | Promise<Scripted> = () => ({})) {}

  async resolve(request: BashRequest): Promise<BashSpec> {
    this.requests.push(request)
    if (this.resolveError !== undefined) throw this.resolveError
    return {
      command: request.command,
      workdir: request.workdir ?? '/work/default',
      timeoutMs: request.timeoutMs ?? 1000,
      stdoutMaxBytes: Math.min(request.stdoutMaxBytes ?? 1_000_000, this.maxStdoutMaxBytes),
      stderrMaxBytes: request.stderrMaxBytes ?? 1000,
      onStdoutOverflow: request.onStdoutOverflow ?? 'drain',
      env: {},
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.stdoutSink === undefined ? {} : { stdoutSink: request.stdoutSink }),
    }
  }

  async run(spec: BashSpec): Promise<BashRunResult> {
    this.specs.push(spec)
    if (this.runError !== undefined) throw this.runError
    const scan = isLinkScan(spec.command) && !this.scriptsLinkScans
    const s = scan ? {} : { ...probeReply(spec.command), ...(await this.script(spec.command, spec)) }
    const stdout = Buffer.from(s.stdout ?? '')
    const stderr = s.stderr ?? ''
    const sink = spec.stdoutSink
    if (sink !== undefined) {
      // As an executor does: the head up to the cap, in chunks, and each chunk's buffer reused after the call.
      const head = stdout.subarray(0, spec.stdoutMaxBytes)
      const chunk = Buffer.alloc(this.stdoutChunkBytes)
      for (let at = 0; at < head.length; at += chunk.length) {
        const length = head.copy(chunk, 0, at, at + chunk.length)
        sink(chunk.subarray(0, length))
        chunk.fill(0x2a)
      }
    }
    return {
      exitCode: s.exitCode === undefined ? 0 : s.exitCode,
      signal: s.signal ?? null,
      stop: s.stop ?? 'exit',
      durationMs: 1,
      stdout: {
        text: sink === undefined ? stdout.toString() : '',
        truncated: s.stdoutTruncated ?? false,
        totalBytes: stdout.length,
      },
      stderr: { text: stderr, truncated: s.stderrTruncated ?? false, totalBytes: Buffer.byteLength(stderr) },
    }
  }

  /** The search commands run, probes and link scans left out. */
  searches(): string[] {
    return this.specs.map((s) => s.command).filter((c) => !isProbe(c) && !isLinkScan(c))
  }
}

/** A spill store that keeps texts in memory, or fails when told to; a streamed save is kept as its text. */
export class MemorySpill implements SpillStore {
  readonly saved: SpillSaveRequest[] = []
  failWith: Error | undefined
  /** Scratch files handed out, each with whether it was closed. */
  readonly scratches: { bytes: () => Buffer; closed: boolean }[] = []

  /** A scratch file in memory: what a store's disk file does, for a test to look into. */
  openScratch(): SpillScratch {
    let chunks: Buffer[] = []
    let size = 0
    const entry = { bytes: () => Buffer.concat(chunks), closed: false }
    this.scratches.push(entry)
    return {
      get size() {
        return size
      },
      append(bytes) {
        if (entry.closed) throw new Error('the scratch file is closed')
        chunks.push(Buffer.from(bytes))
        size += bytes.length
        return size - bytes.length
      },
      read(offset, length) {
        // Read after close, as spill-local's file refuses to be (its descriptor is gone).
        if (entry.closed) throw new Error('the scratch file is closed')
        chunks = [Buffer.concat(chunks)]
        return Buffer.from(chunks[0]!.subarray(offset, offset + length))
      },
      close() {
        entry.closed = true
      },
    }
  }

  async saveText(request: SpillSaveRequest) {
    if (this.failWith !== undefined) throw this.failWith
    this.saved.push(request)
    return { locator: this.locatorOf(request), retrievalHint: 'Use read with offset/limit, or grep this path to search within it.' }
  }

  async saveStream({ blocks, ...request }: SpillStreamRequest) {
    if (this.failWith !== undefined) throw this.failWith
    // Each block is copied before the next is asked for, since its producer may refill the buffer.
    const copies: Buffer[] = []
    for await (const block of blocks) copies.push(Buffer.from(block))
    return this.saveText({ ...request, text: Buffer.concat(copies).toString() })
  }

  async readText(locator: string) {
    const request = this.saved.find((r) => this.locatorOf(r) === locator)
    if (request === undefined) throw new Error(`no text saved at ${locator}`)
    return request.text
  }

  holds(path: string, owner: string): Promise<boolean> {
    return Promise.resolve(path.startsWith(`/spill/${owner}/`))
  }

  locate(owner: string, name: string): Promise<string | undefined> {
    const locator = `/spill/${owner}/${name}`
    return Promise.resolve(this.saved.some((r) => this.locatorOf(r) === locator) ? locator : undefined)
  }

  private locatorOf(request: SpillSaveRequest): string {
    return `/spill/${request.owner}/0001-${request.filename}`
  }
}

/**
 * `text` as UTF-8 bytes, each `ÿ` (U+00FF) written as the lone byte FF, which is not valid UTF-8: a way
 * to write invalid bytes among a test's strings. A U+FFFD in `text` stays the character.
 */
export function invalidUtf8(text: string): Buffer {
  return Buffer.concat(
    text.split('\u00ff').flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff]), Buffer.from(part)])),
  )
}

/** The grep script's output: its `D` record (rg ran inside the target directory), then rg's `--null` lines. */
export function rgLines(...records: [path: string, line: number, text: string][]): string {
  return `D\0${records.map(([path, line, text]) => `${path}\0${line}:${text}\n`).join('')}`
}

/** The glob script's `mtime TAB name NUL` output. */
export function statRecords(...records: [mtime: string, name: string][]): string {
  return records.map(([mtime, name]) => `${mtime}\t${name}\0`).join('')
}

/** True for a load-time probe's script (the rg probe or the mtime helper probe). */
export function isProbe(command: string): boolean {
  // The link scan and the window script look their programs up the same way, but are a search's own runs.
  return command.startsWith('dsh_lookup()') && !isLinkScan(command) && !command.includes('dsh_grep=$dsh_path')
}

/** True for a probe that resolves glob's mtime helpers: its own, or the joint one that also probes rg. */
export function isMtimeProbe(command: string): boolean {
  return isProbe(command) && command.includes('dsh_mtime_probe')
}

/** True for the joint probe (the first rg candidate and the mtime helper in one run). */
export function isJointProbe(command: string): boolean {
  return isProbe(command) && command.includes("printf 'dsh-probe-1")
}

/** What rg 15 prints for `--version`, as the probe passes it on after the path and a NUL. */
export const RG_VERSION = 'ripgrep 15.0.0 (rev 3a612f88b8)\n\nfeatures:+pcre2'

/**
 * What a probe prints by default: for rg, the candidate itself when absolute (else as if found in
 * /usr/bin) and its version; for the mtime helpers, GNU find in /usr/bin; the joint probe, both.
 */
function probeReply(command: string): Scripted {
  if (!isProbe(command)) return {}
  const find = 'find\0/usr/bin/find'
  const candidate = /^dsh_lookup '?([^'\n]*?)'? && \{$/m.exec(command)?.[1]
  const rg = candidate === undefined ? '' : `${candidate.startsWith('/') ? candidate : `/usr/bin/${candidate}`}\0${RG_VERSION}`
  if (isJointProbe(command)) return { stdout: `dsh-probe-1\0${find}\x000\0${rg}` }
  if (isMtimeProbe(command)) return { stdout: find }
  return { stdout: rg }
}

/** True for the script that lists the symbolic links below a search root (docs/design.md#symbolic-links). */
export function isLinkScan(command: string): boolean {
  return command.includes(' -type l -print0 ')
}
