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

export { budgetMs } from '../../../test-support/budget.js'
export { processesMentioning, waitUntil } from '../../../test-support/processes.js'
export { scratchDir, tempDir, writeTree } from '../../../test-support/temp-tree.js'
