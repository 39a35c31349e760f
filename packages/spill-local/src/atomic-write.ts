// Writing a spill file whole or not at all: a private temp file, then rename.
import { open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * Writes `text` to a temp file beside `target`, then renames it into place, so the name a locator
 * gives only ever holds the whole text. The file is 0600 by chmod, not by trusting the umask, since a
 * spilled result can hold whatever a search found. No fsync: a spill lives as long as its session,
 * which a crash ends too.
 */
export async function writeFileAtomic(target: string, text: string): Promise<void> {
  const temp = join(dirname(target), `.tmp-${basename(target)}`)
  try {
    // 'wx' (O_EXCL) never opens an existing file or follows a symlink planted at the temp name.
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.chmod(0o600)
      await handle.writeFile(text, 'utf8')
    } finally {
      await handle.close()
    }
    await rename(temp, target)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}
