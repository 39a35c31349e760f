// Grep's files_with_matches mode: rg's file list through the mtime helper, newest modified first, as glob lists.
import { GlobListingParser } from '../../engine/glob/listing.js'
import { sortNewestFirst } from '../../engine/glob/order.js'
import { showPaths, type ShownPaths } from '../../engine/glob/paths.js'
import type { GlobRuns } from '../../engine/glob/runs.js'
import { nameDisplay } from '../../engine/display-path.js'
import { fileEntries } from '../files.js'
import { ScriptHead } from '../script-head.js'
import { baseOf, lossyNote, plural, type GrepMode } from './mode.js'

/** files_with_matches: one matching file per entry, newest modified first (ties by path). */
export const FILES_WITH_MATCHES: GrepMode = {
  rgFlags: () => ['--files-with-matches'],
  listsMtimes: true,
  reader: (_args, config, target, stream) => {
    // Past half the raw output cap the list goes to sorted runs (docs/design.md#results-bigger-than-memory).
    // One more than the page: taking a page reads the entry after it.
    const runs = stream?.runs(stream.page.offset + stream.page.count + 1)
    const parser = new GlobListingParser(config.rawOutputMaxBytes, runs)
    const head = new ScriptHead((chunk) => parser.push(chunk))
    return {
      push: (chunk) => head.push(chunk),
      finish: (workdir, timedOut) => {
        const base = baseOf(head, workdir, target, timedOut)
        const listing = timedOut === undefined ? parser.finish() : parser.finishStopped()
        const display = nameDisplay(workdir, base)
        if (parser.streamed) runs!.add(listing)
        const shown = parser.streamed ? runs!.shown(display) : showPaths(listing, sortNewestFirst(listing), display)
        const tally = plural(shown.count, 'file', 'files')
        return {
          entries: (start) => fileEntries(shown, start),
          total: shown.count,
          matches: shown.count,
          heading: shown.count === 0 ? 'No files found' : `Found ${tally}, newest modified first`,
          tally: shown.count === 0 ? 'no files' : tally,
          unit: 'files',
          notes: lossyNote(shown.lossy, 'path', 'paths'),
          found: shown.count > 0,
          ...(parser.streamed ? { spillEntries: () => streamedFiles(runs!, shown) } : {}),
        }
      },
    }
  },
}

/** Every file of a streamed list, for the spill: only when the runs kept them all. */
function streamedFiles(runs: GlobRuns, shown: ShownPaths): Iterable<string> {
  if (!runs.complete) throw new Error('the result is larger than memory and the spill store keeps no scratch file')
  return fileEntries(shown, 0)
}
