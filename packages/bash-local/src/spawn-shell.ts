// Starting the shell: its own process group, stdin from /dev/null, a spawn failure as a typed error.
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import type { Readable } from 'node:stream'
import type { BashSpec } from '@dsh/core'
import { BashError } from './errors.js'

/** A started shell with piped stdout and stderr. */
export type ShellProcess = ChildProcessByStdio<null, Readable, Readable>

/**
 * Starts `<shellPath> -c <command>` in its own process group (`detached: true`), so the group can be
 * killed as one, with stdin from /dev/null so nothing waits on input that never comes.
 */
export function spawnShell(spec: BashSpec, shellPath: string): ShellProcess {
  try {
    return spawn(shellPath, ['-c', spec.command], {
      cwd: spec.workdir,
      env: { ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
  } catch (error) {
    // Node throws synchronously for arguments it rejects outright (a NUL in a hand-built spec).
    throw spawnFailed(shellPath, spec.workdir, error as Error)
  }
}

/**
 * The error for a shell that got no pid: Node reports why on the `error` event (ENOENT for a missing
 * shell, or for a workdir removed since `resolve`; EACCES; EAGAIN). A successful spawn never emits
 * `error` here, since nothing calls `kill` or `send` on the child.
 */
export function spawnFailure(child: ShellProcess, spec: BashSpec, shellPath: string): Promise<BashError> {
  return new Promise((resolve) => child.once('error', (error) => resolve(spawnFailed(shellPath, spec.workdir, error))))
}

function spawnFailed(shellPath: string, workdir: string, error: Error): BashError {
  return new BashError(
    'BASH_SPAWN_FAILED',
    `could not start the shell ${shellPath} in ${workdir} (${error.message}); check that the shell exists and is executable and that the workdir still exists`,
    { cause: error },
  )
}
