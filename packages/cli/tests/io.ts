import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
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

/** A fresh directory under the OS temp dir. */
export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `dsh-cli-${label}-`))
}

/** Writes files (parents created) from a `relative path → content` table. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
}

export { processesMentioning, waitUntil } from '../../../test-support/processes.js'
