import { rgArgv } from '../packages/tool-fs-search/src/engine/rg-command.js'
import { drainProcess } from './processes.js'

/**
 * Reads every file of a tree once, so the rounds measure search, not the disk: a listing (what glob
 * stats) and a search for text that never occurs, with ignore rules off so nothing is skipped.
 * Returns how many files the tree holds.
 */
export async function warmPageCache(rg: string, root: string): Promise<number> {
  const everything = ['--no-ignore', '--hidden']
  const listing = await drainProcess(rgArgv({ rg, flags: ['--files', ...everything], paths: [root] }))
  await drainProcess(rgArgv({ rg, flags: [...everything, '--count'], pattern: 'dsh-bench: text that never occurs', paths: [root] }))
  return listing.stdoutLines
}
