// What every command writes through and the statuses it ends with: its own module, so the commands
// cli.ts dispatches to share them without importing cli.ts back.
import type { Readable, Writable } from 'node:stream'

/** Where the CLI writes and what it knows of its process. */
export interface CliIo {
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
  /** The process cwd: what `--cwd`, `--config` and `--spill-dir` are relative to. */
  cwd: string
  version: string
  /** The byte streams `dsh mcp` speaks JSON-RPC over: the process's own, or a test's. */
  stdio: { stdin: Readable; stdout: Writable }
}

/** Exit statuses (the contract in the README). */
export const EXIT = { ok: 0, toolError: 1, usage: 2, interrupted: 130 } as const
