import { spawn } from 'node:child_process'
import { once } from 'node:events'

/** Where a child runs. */
export interface ProcessOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /**
   * Starts it in a session of its own (setsid), as a shell starts a command: then it is scheduled as a
   * user's command is, not in this process's group (the start case times every contender so).
   */
  ownSession?: boolean
}

/** What a finished child printed, counted rather than kept. */
export interface Drained {
  ms: number
  stdoutBytes: number
  stdoutLines: number
  exitCode: number | null
}

/**
 * Runs a program (no shell), reads and discards its stdout, and times spawn to `close`. rg's exit 1
 * (no match) is a result; anything else but 0 throws, since a failed baseline would be fast and wrong.
 */
export async function drainProcess(argv: readonly string[], options: ProcessOptions = {}): Promise<Drained> {
  const started = process.hrtime.bigint()
  const { ownSession = false, ...where } = options
  const child = spawn(argv[0]!, argv.slice(1), { ...where, detached: ownSession, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdoutBytes = 0
  let stdoutLines = 0
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdoutBytes += chunk.length
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) stdoutLines += 1
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [exitCode] = (await once(child, 'close')) as [number | null]
  const ms = elapsedMs(started)
  if (exitCode !== 0 && exitCode !== 1) throw new Error(`${argv.join(' ')} exited ${exitCode}: ${stderr.slice(-500)}`)
  return { ms, stdoutBytes, stdoutLines, exitCode }
}

export function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6
}
