import { execFileSync } from 'node:child_process'
import { closeSync, openSync, statSync, writeSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { runCli, type CliIo } from '@dsh/cli'

/** What one in-process `dsh` run printed and returned. */
export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs `dsh argv` in-process with `cwd` as its process cwd, capturing both streams. */
export async function dsh(argv: readonly string[], cwd: string, overrides: Partial<CliIo> = {}): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    cwd,
    version: '9.9.9-test',
    stdio: { stdin: new PassThrough(), stdout: new PassThrough() },
    ...overrides,
  }
  const code = await runCli(argv, io)
  return { code, stdout, stderr }
}

/**
 * Damages a byte of an index file's header and sets its modification time back to the nanosecond: a
 * process that loaded the file before still finds it unchanged by its stamp, and one that reads it now
 * refuses it. Returns the stamp's time, to check it held.
 */
export function damageKeepingTime(file: string): { before: bigint; after: bigint } {
  const { mtimeNs } = statSync(file, { bigint: true })
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.from('#'), 0, 1, 20)
  closeSync(fd)
  execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file])
  return { before: mtimeNs, after: statSync(file, { bigint: true }).mtimeNs }
}

export { budgetMs } from '../../../test-support/budget.js'
export { processesMentioning, waitUntil } from '../../../test-support/processes.js'
export { scratchDir, tempDir, writeTree } from '../../../test-support/temp-tree.js'
