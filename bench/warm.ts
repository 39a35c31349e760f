import { drainProcess } from './processes.js'

/**
 * Reads every file of a tree once, so the rounds measure search, not the disk: a listing (what glob
 * stats) and a search for text that never occurs, with ignore rules off so nothing is skipped.
 * Returns how many files the tree holds.
 */
export async function warmPageCache(rg: string, root: string): Promise<number> {
  const everything = ['--no-config', '--no-ignore', '--hidden']
  const listing = await drainProcess([rg, '--files', ...everything, '--', root])
  await drainProcess([rg, ...everything, '--count', '-e', 'dsh-bench: text that never occurs', '--', root])
  return listing.stdoutLines
}
