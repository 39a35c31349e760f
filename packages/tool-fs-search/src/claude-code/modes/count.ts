// Grep's count mode: rg's `--count`, one `path:count` entry per file, sorted by path.
import { displayFrom } from '../../engine/display-path.js'
import type { CountRuns } from '../count-runs.js'
import { CountParser } from '../counts.js'
import { countEntries, showCounts, type ShownCount } from '../files.js'
import { ScriptHead } from '../script-head.js'
import { baseOf, lossyNote, plural, type GrepMode, type ModeResult } from './mode.js'

/** count: matching lines per file, and the totals in the heading. */
export const COUNT: GrepMode = {
  rgFlags: () => ['--count'],
  listsMtimes: false,
  reader: (_args, config, target, stream) => {
    // Past half the raw output cap the counts go to sorted runs (docs/design.md#results-bigger-than-memory).
    let runs: { runs: CountRuns; show: (name: string) => string } | undefined
    const parser =
      stream === undefined
        ? new CountParser()
        : new CountParser(config.rawOutputMaxBytes, (counts) => {
            runs ??= stream.counts(head.searched(), stream.page.offset + stream.page.count)
            runs.runs.add(showCounts(counts, runs.show))
          })
    const head = new ScriptHead((chunk) => parser.push(chunk))
    return {
      push: (chunk) => head.push(chunk),
      finish: (workdir, timedOut) => {
        const last = timedOut === undefined ? parser.finish() : parser.finishStopped()
        if (runs !== undefined) {
          runs.runs.add(showCounts(last, runs.show))
          return streamedResult(runs.runs, stream!.page)
        }
        const counts = showCounts(last, displayFrom(workdir, baseOf(head, workdir, target, timedOut)))
        const lossy = counts.filter((file) => file.replaced).length
        return result(
          counts.length,
          counts.reduce((sum, file) => sum + file.count, 0),
          lossy,
          (start) => countEntries(counts, start),
        )
      },
    }
  },
}

/** The result the heading and notes describe, with its entries from any start. */
function result(total: number, matches: number, lossy: number, entries: ModeResult['entries']): ModeResult {
  const tally = `${plural(matches, 'matching line', 'matching lines')} in ${plural(total, 'file', 'files')}`
  return {
    entries,
    total,
    matches,
    heading: total === 0 ? 'No matches found' : `Found ${tally}`,
    tally: total === 0 ? 'no matches' : tally,
    unit: 'files',
    notes: lossyNote(lossy, 'path', 'paths'),
    found: total > 0,
  }
}

/**
 * A streamed result: the page's entries are kept from one pass of the merge, which with a scratch file
 * also counts the files and the replaced paths exactly (without one, the runs count them). The spill
 * merges again.
 */
function streamedResult(runs: CountRuns, page: { offset: number; count: number }): ModeResult {
  const shown: ShownCount[] = []
  let total = 0
  let lossy = 0
  for (const entry of runs.merged()) {
    if (total >= page.offset && total < page.offset + page.count) shown.push(entry)
    else if (!runs.complete && total >= page.offset) break
    total += 1
    if (entry.replaced) lossy += 1
  }
  return {
    ...(runs.complete ? result(total, runs.matches, lossy, pageEntries) : result(runs.total, runs.matches, runs.lossy, pageEntries)),
    spillEntries: () => {
      if (!runs.complete) throw new Error('the result is larger than memory and the spill store keeps no scratch file')
      return countEntries(runs.merged(), 0)
    },
  }

  function pageEntries(start: number): Iterable<string> {
    return countEntries(shown, start - page.offset)
  }
}
