// Grep's count mode: rg's `--count`, one `path:count` entry per file, sorted by path.
import { displayFrom } from '../../engine/display-path.js'
import { CountParser } from '../counts.js'
import { countEntries, showCounts } from '../files.js'
import { ScriptHead } from '../script-head.js'
import { baseOf, lossyNote, plural, type GrepMode } from './mode.js'

/** count: matching lines per file, and the totals in the heading. */
export const COUNT: GrepMode = {
  rgFlags: () => ['--count'],
  listsMtimes: false,
  reader: (_args, _config, target) => {
    const parser = new CountParser()
    const head = new ScriptHead((chunk) => parser.push(chunk))
    return {
      push: (chunk) => head.push(chunk),
      finish: (workdir, timedOut) => {
        const base = baseOf(head, workdir, target, timedOut)
        const counts = showCounts(timedOut === undefined ? parser.finish() : parser.finishStopped(), displayFrom(workdir, base))
        const matches = counts.reduce((sum, file) => sum + file.count, 0)
        const tally = `${plural(matches, 'matching line', 'matching lines')} in ${plural(counts.length, 'file', 'files')}`
        return {
          entries: (start) => countEntries(counts, start),
          total: counts.length,
          matches,
          heading: counts.length === 0 ? 'No matches found' : `Found ${tally}`,
          tally: counts.length === 0 ? 'no matches' : tally,
          unit: 'files',
          notes: lossyNote(counts.filter((file) => file.replaced).length, 'path', 'paths'),
          found: counts.length > 0,
        }
      },
    }
  },
}
