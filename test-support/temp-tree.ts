// Temp directories and the file trees tests write into them, declared as data.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'

/** A fresh directory under the OS temp dir, named `dsh-<label>-…`. */
export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `dsh-${label}-`))
}

/**
 * A fresh directory (`tempDir`, its real path, so a test comparing paths meets no symlinked /tmp),
 * removed after the tests of the suite that asks for it: the file's when asked at its top level, a
 * describe's inside one. What a test locked (a permission test's unreadable file) is unlocked first.
 */
export function scratchDir(label: string): string {
  const dir = realpathSync(tempDir(label))
  afterAll(() => removeDir(dir))
  return dir
}

function removeDir(dir: string): void {
  try {
    execFileSync('chmod', ['-R', 'u+rwX', dir], { stdio: 'ignore' })
  } catch {
    // already gone, or nothing to unlock
  }
  rmSync(dir, { recursive: true, force: true })
}

/** Writes files (parents created) from a `relative path → content` table: fixtures as data. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
}
