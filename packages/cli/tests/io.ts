import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
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

/** Live processes whose command line mentions `needle`, from /proc; a zombie has no command line. */
export function processesMentioning(needle: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    let cmdline: string
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
    } catch {
      continue // exited while we scanned
    }
    if (cmdline.includes(needle)) found.push(Number(entry))
  }
  return found
}

/** Polls until `check` returns true or `withinMs` passes; returns the last answer. */
export async function waitUntil(check: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  return check()
}
