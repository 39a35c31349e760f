// Grep's files_with_matches mode: rg's file list through the mtime helper, newest modified first, as glob lists.
import { GlobListingParser } from '../../engine/glob/listing.js'
import { sortNewestFirst } from '../../engine/glob/order.js'
import { showPaths } from '../../engine/glob/paths.js'
import { nameDisplay } from '../../engine/display-path.js'
import { fileEntries } from '../files.js'
import { ScriptHead } from '../script-head.js'
import { baseOf, lossyNote, plural, type GrepMode } from './mode.js'

/** files_with_matches: one matching file per entry, newest modified first (ties by path). */
export const FILES_WITH_MATCHES: GrepMode = {
  rgFlags: () => ['--files-with-matches'],
  listsMtimes: true,
  reader: (_args, config, target) => {
    const parser = new GlobListingParser(config.rawOutputMaxBytes)
    const head = new ScriptHead((chunk) => parser.push(chunk))
    return {
      push: (chunk) => head.push(chunk),
      finish: (workdir, timedOut) => {
        const base = baseOf(head, workdir, target, timedOut)
        const listing = timedOut === undefined ? parser.finish() : parser.finishStopped()
        const shown = showPaths(listing, sortNewestFirst(listing), nameDisplay(workdir, base))
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
        }
      },
    }
  },
}
