// Grep's content mode: the grep parser's records, context lines flagged apart from matches, one row per entry.
import path from 'node:path'
import { explicitPath, displayFrom } from '../../engine/display-path.js'
import { nameSome } from '../../engine/footers.js'
import { showMatches, type ShownMatches } from '../../engine/grep/matches.js'
import type { StreamedRecords } from '../../engine/grep/pieces.js'
import { RgOutputParser } from '../../engine/grep/parse.js'
import { contextLines } from '../args.js'
import { contentEntries, countContext, type RowStyle } from '../content.js'
import { lossyNote, plural, type GrepMode } from './mode.js'

/** content: matching lines grouped by file, with the context lines asked for and `--` where lines are skipped. */
export const CONTENT: GrepMode = {
  rgFlags: (args, config) => {
    const context = contextLines(args)
    return [
      '--line-number',
      '--no-heading',
      `--max-columns=${config.grepMaxLineBytes}`,
      '--max-columns-preview',
      // Gaps are read from the line numbers: a separator line would carry no path to tie it to.
      '--no-context-separator',
      ...(context.before > 0 ? [`--before-context=${context.before}`] : []),
      ...(context.after > 0 ? [`--after-context=${context.after}`] : []),
    ]
  },
  listsMtimes: false,
  reader: (args, config, target, stream) => {
    const context = contextLines(args)
    const style = { numbered: args['-n'] !== false, gaps: context.before + context.after > 0 }
    const parser = new RgOutputParser(config.grepMaxLineBytes, config.rawOutputMaxBytes, {
      fileTarget: explicitPath(target),
      context: style.gaps,
      ...(stream === undefined ? {} : { pieces: stream.pieces }),
    })
    // The parser reads the head itself.
    return {
      push: (chunk) => parser.push(chunk),
      finish: (workdir, timedOut) => {
        const output = timedOut === undefined ? parser.finish() : parser.finishStopped()
        const base = output.searched === 'directory' ? path.resolve(workdir, target) : workdir
        const shownFrom = displayFrom(workdir, base)
        const { streamed } = output
        const page = streamed === undefined ? undefined : streamedPage(streamed, shownFrom, stream!.page)
        const matches = page?.matches ?? showMatches(output, shownFrom)
        const { matchLines, contextLines } =
          streamed === undefined
            ? countContext(matches)
            : { matchLines: streamed.total - streamed.contextLines, contextLines: streamed.contextLines }
        const files = plural(matches.fileCount ?? matches.files.length, 'file', 'files')
        const withContext = contextLines > 0 ? `, with ${plural(contextLines, 'context line', 'context lines')}` : ''
        const tally = `${plural(matchLines, 'matching line', 'matching lines')} in ${files}`
        const binary = output.binaryFiles.map(shownFrom)
        const stopped = output.binaryStopped.map(shownFrom)
        const before = page?.before ?? 0
        return {
          entries: (start) => contentEntries(matches, start - before, style),
          ...(streamed === undefined ? {} : { spillEntries: () => streamedEntries(streamed, matches, shownFrom, style) }),
          total: matches.total,
          matches: matchLines,
          heading:
            matches.total === 0 ? (binary.length > 0 ? 'No matching lines to show' : 'No matches found') : `Found ${tally}${withContext}`,
          tally: matchLines === 0 ? 'no matches' : tally,
          unit: 'lines',
          get notes() {
            return [
              ...(binary.length > 0 ? [`(Binary file matched, lines not shown: ${nameSome(binary)}.)`] : []),
              ...(stopped.length > 0 ? [`(rg stopped at binary content in ${nameSome(stopped)}, so matches after it are missing.)`] : []),
              ...lossyNote(matches.lossy, 'line or path', 'lines or paths'),
              ...(matches.escaped > 0
                ? [
                    `(${plural(matches.escaped, 'line contains', 'lines contain')} control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)`,
                  ]
                : []),
            ]
          },
          found: matches.total > 0 || output.binaryFiles.length > 0,
          content: { matches, base, before },
        }
      },
    }
  },
}

/**
 * A streamed result's page: the files that hold the entries it asks for, read back (from the scratch
 * file, or memory when there is none) without the records before them, shown with the whole
 * result's counts.
 */
function streamedPage(
  streamed: StreamedRecords,
  shown: (file: string) => string,
  { offset, count }: { offset: number; count: number },
): { matches: ShownMatches; before: number } {
  const { total, lossy, escaped, files } = streamed
  const window = streamed.window(offset, count)
  return { matches: { ...showMatches(window.records, shown), total, lossy, escaped, fileCount: files }, before: window.before }
}

/** Every entry of a streamed result, file by file; the page's files from the page, whose long lines show their windows. */
function* streamedEntries(
  streamed: StreamedRecords,
  page: ShownMatches,
  shown: (file: string) => string,
  style: RowStyle,
): Generator<string> {
  const all = streamed.all
  if (all === undefined) throw new Error('the result is larger than memory and the spill store keeps no scratch file')
  const onPage = new Map(page.files.map((file) => [file.path, file]))
  let after = false
  for (const { display, load } of all()) {
    const file = onPage.get(display)
    yield* contentEntries(file === undefined ? showMatches(load(), shown) : { ...page, files: [file] }, 0, style, after)
    after = true
  }
}
