// `--format lines`: a result as scripts read rg's and fd's output, from the tool's value rather than its page.
import type { GlobValue, GrepValue } from '@dsh/tool-fs-search'
import type { ReadValue } from '@dsh/tool-fs'
import type { Paint } from './color.js'
import { UsageError } from './command-line.js'

/** What one result prints in lines: its records for stdout, and what they leave out, one note a line, for stderr. */
export interface LinesOutput {
  records: string
  notes: string[]
}

/** How one tool's value prints as lines, and whether `-0` applies to it. */
export interface LinesFormat {
  takesNul: boolean
  /** The records, their paths, line numbers and matches written with `paint` (a file's raw lines never are, as `cat`). */
  print(value: unknown, nul: boolean, paint: Paint): LinesOutput
}

/** Where the records a cut value leaves out are: the text names the spill, or says why none (or only part) was saved. */
const REST = 'the text says where the rest is saved, or why it is not'

/**
 * The tools `--format lines` prints, by name. Every record is in it, not only the page's: the caps
 * that keep a page within a model's budget do not apply to a script, which reads on or pipes to head.
 */
export const LINES_FORMATS: Readonly<Record<string, LinesFormat>> = {
  glob: {
    takesNul: true,
    print: (value, nul, paint) => {
      const { paths, pathsCut, total, incomplete } = value as GlobValue
      // A listing larger than memory lists its newest paths; the rest is only in the spill, when one was saved.
      const cut = pathsCut === true ? [`incomplete: only the newest ${paths.length} of ${total} paths are listed; ${REST}`] : []
      return {
        records: paths.map((path) => `${paint.path(path)}${nul ? '\0' : '\n'}`).join(''),
        notes: [...cut, ...incompleteNotes(incomplete)],
      }
    },
  },
  grep: {
    takesNul: true,
    print: (value, nul, paint) => {
      const { matches, matchesCut, total, incomplete } = value as GrepValue
      // A result larger than memory lists its first files' matches; the rest is only in the spill, when one was saved.
      const cut = matchesCut === true ? [`incomplete: only the first ${matches.length} of ${total} matches are listed; ${REST}`] : []
      const records = matches
        .map(
          (match) =>
            `${paint.path(match.path)}${nul ? '\0' : ':'}${paint.lineNumber(String(match.lineNumber))}:${paint.line(match.line)}\n`,
        )
        .join('')
      return { records, notes: [...cut, ...incompleteNotes(incomplete)] }
    },
  },
  read: {
    takesNul: false,
    print: (value) => {
      const { path, lineTexts, nextOffset } = value as ReadValue
      const notes = nextOffset === undefined ? [] : [`${path} continues: read on with --offset ${nextOffset}`]
      return { records: lineTexts.map((text) => `${text}\n`).join(''), notes }
    },
  },
}

/** The claude-code profile's Glob and Read print as glob and read do; its Grep's value holds no lines to print. */
const CLAUDE_CODE_LINES: Readonly<Record<string, LinesFormat>> = { Glob: LINES_FORMATS.glob!, Read: LINES_FORMATS.read! }

/** The lines format of a tool, checked before the call runs: a usage error when it has none, or takes no `-0` that was given. */
export function linesFormatFor(tool: string, nul: boolean): LinesFormat {
  const format = LINES_FORMATS[tool] ?? CLAUDE_CODE_LINES[tool]
  if (format === undefined) {
    throw new UsageError(`--format lines prints ${Object.keys(LINES_FORMATS).join(', ')} and tools, not ${tool}`, { command: tool })
  }
  if (nul && !format.takesNul) throw new UsageError(`-0 (--null) ends paths, and ${tool} prints none`, { command: tool })
  return format
}

function incompleteNotes(incomplete: readonly string[]): string[] {
  return incomplete.map((gap) => `incomplete: ${gap}`)
}
