// What every command writes through and the statuses it ends with: its own module, so the commands
// cli.ts dispatches to share them without importing cli.ts back.
import type { Readable, Writable } from 'node:stream'
import type { LinkScanMemory, ProbeCache } from '@dsh/tool-fs-search'

/** Where the CLI writes and what it knows of its process. */
export interface CliIo {
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
  /** The process cwd: what `--cwd`, `--config` and `--spill-dir` are relative to. */
  cwd: string
  version: string
  /** The byte streams `dsh mcp` speaks JSON-RPC over: the process's own, or a test's. */
  stdio: { stdin: Readable; stdout: Writable }
  /**
   * What `--color=auto` asks of the process: whether stdout is a terminal, and the environment
   * (`NO_COLOR`, `TERM`). @default no terminal: a host that embeds the command gets no colour unless asked.
   */
  terminal?: { isTTY: boolean; env: Readonly<Record<string, string | undefined>> }
  /**
   * Cancels the call. When given, runCli listens for no process signal: the warm server's calls are
   * each cancelled by their own client. @default Ctrl-C, SIGTERM or SIGHUP to this process
   */
  signal?: AbortSignal
  /**
   * Remembers the executor probe's answer across calls (docs/design.md#the-probe-cache): the command's
   * own process and the warm server each hold one. Used only with the default local executor (no
   * `bash-local` config). @default none: every call probes
   */
  probeCache?: ProbeCache
  /**
   * Keeps link scans across calls (docs/design.md#the-link-scan-is-remembered): the warm server holds
   * one. Used only with the default local executor. @default none: each call's harness keeps its own
   */
  linkScanMemory?: LinkScanMemory
  /**
   * This process outlives the call (the warm server): what pays off only across calls, such as the
   * index's watcher (`index-local.watch`), is kept. @default false
   */
  warm?: boolean
  /**
   * The warm server's hold on a call it may hand back (`dsh index`, docs/design.md#dsh-index-in-the-warm-server):
   * `admit` takes it (the client then waits and passes Ctrl-C on), `decline` hands it back before any
   * output, and the client runs it in process. Absent in the client's own process.
   */
  served?: ServedCall
}

/** See `CliIo.served`. Output written before `admit` is held until it (dropped on a decline); once admitted, `decline` does nothing. */
export interface ServedCall {
  admit(): void
  decline(why: string): void
}

/**
 * Exit statuses, as rg's (docs/design.md#the-exit-status-says-what-was-found): 0 something was found
 * or listed, 1 nothing was, 2 an error (a tool's error, or a usage error), 130 interrupted.
 */
export const EXIT = { ok: 0, nothingFound: 1, error: 2, usage: 2, interrupted: 130 } as const
