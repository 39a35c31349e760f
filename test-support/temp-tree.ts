// Temp directories and the file trees tests write into them, declared as data.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** A fresh directory under the OS temp dir, named `dsh-<label>-…`. */
export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `dsh-${label}-`))
}

/** Writes files (parents created) from a `relative path → content` table: fixtures as data. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
}
