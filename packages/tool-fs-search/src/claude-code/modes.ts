// Grep's output_mode, decided once per call: each mode's flags, reader, heading and notes live in its own module.
import type { OutputMode } from './args.js'
import { CONTENT } from './modes/content.js'
import { COUNT } from './modes/count.js'
import { FILES_WITH_MATCHES } from './modes/files-with-matches.js'
import type { GrepMode } from './modes/mode.js'

const MODES: Record<OutputMode, GrepMode> = { files_with_matches: FILES_WITH_MATCHES, count: COUNT, content: CONTENT }

/** The mode a call asks for: files_with_matches when it gives none, as Claude Code's Grep. */
export function grepModeOf(mode: OutputMode | undefined): GrepMode {
  return MODES[mode ?? 'files_with_matches']
}
