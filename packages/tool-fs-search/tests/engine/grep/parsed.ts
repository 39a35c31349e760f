// Unit tests' way into the byte pipeline: rg output, parsed in chunks, shown under its raw paths.
import { showMatches, type ShownMatches } from '../../../src/engine/grep/matches.js'
import { RgOutputParser, type ParsedOutput } from '../../../src/engine/grep/parse.js'

/** How a test feeds the parser. */
export interface ParseOptions {
  /** Bytes per chunk. @default 3 */
  chunkBytes?: number
  /** @default 2000 */
  maxLineBytes?: number
  /** The file target rg was given, whose binary notice the parser reads. */
  fileTarget?: string
  /** rg printed context lines. @default false */
  context?: boolean
}

/** The script's stdout parsed as it would arrive, in chunks; throws what `finish` throws. */
export function parseOutput(stdout: string | Buffer, { chunkBytes = 3, maxLineBytes = 2000, ...options }: ParseOptions = {}): ParsedOutput {
  const bytes = Buffer.from(stdout)
  const parser = new RgOutputParser(maxLineBytes, 1 << 20, options)
  for (let at = 0; at < bytes.length; at += chunkBytes) parser.push(bytes.subarray(at, at + chunkBytes))
  return parser.finish()
}

/** The parsed matches shown under their raw paths. */
export function shownOf(stdout: string | Buffer, options: ParseOptions = {}): ShownMatches {
  return showMatches(parseOutput(stdout, options), (path) => path)
}
