// What the tools tell a model about what they see.
import type { PromptSection } from '@dsh/core'
import { LINKS } from '../engine/links.js'
import { VCS_EXCLUDES } from '../engine/vcs.js'

const vcs = VCS_EXCLUDES.join(', ')

/** What the glob tool's schema tells a model: exactly what it sees (docs/design.md#say-what-each-tool-sees). */
export const GLOB_DESCRIPTION = [
  'Find files by name with a glob pattern, newest modified first.',
  'Lists regular files only, hidden files and files that .gitignore ignores included; it never lists',
  'FIFOs, sockets or device files, nor anything under a VCS metadata directory',
  `(${vcs}). ${LINKS}. A pattern without "/" matches file names at any`,
  'depth ("*.ts"); a pattern with "/" is matched from the search root ("src/**/*.test.ts").',
  '`path` is the directory to search from.',
].join(' ')

/** What the grep tool's schema tells a model. */
export const GREP_DESCRIPTION = [
  'Search file contents with a regular expression (ripgrep syntax), one line at a time.',
  'Searches hidden files but skips files excluded by .ignore or .rgignore, or by .gitignore inside a',
  `git repository; binary files; and VCS metadata directories (${vcs}). ${LINKS}.`,
  '`path` is a file or a directory; `include` is one glob that filters the files of a directory search,',
  'e.g. "*.ts", "*.{ts,tsx}" or "src/**/*.ts". Results are grouped by file with line numbers.',
].join(' ')

// How both tools show a name a repository controls, so a model can read it back.
const QUOTED_PATHS =
  'A path holding a control or invisible character (a bidi override, a zero-width space) is shown JSON-quoted with escapes ("a\\u001bb", "rtl\\u202etxt").'

/** The system-prompt sections registered with the tools. */
export const SEARCH_PROMPT_SECTIONS: readonly PromptSection[] = [
  {
    id: 'tool-fs-search/glob',
    tool: 'glob',
    text: [
      'Use glob to find files by name or path pattern. It lists regular files, ignored and hidden ones',
      'too, except under VCS metadata directories; it never lists FIFOs, sockets or device files, so a',
      `file glob does not show may still exist as one of those. ${LINKS}. Results come newest`,
      'modified first; a capped result names a file holding the complete list; a listing reported',
      `incomplete names what it could not show. ${QUOTED_PATHS}`,
    ].join(' '),
  },
  {
    id: 'tool-fs-search/grep',
    tool: 'grep',
    text: [
      'Use grep to search file contents. It honours ignore files: a file in node_modules or another',
      'ignored directory is not searched, so "no matches" does not prove a text is absent there; grep',
      `that path directly or find it with glob. ${LINKS}. Each matched line is cut to a preview: a row marked`,
      '"(cut)" shows the start of its line, one marked "(cut; columns A-B)" its bytes A to B around the',
      "line's first match; use read for context. Control characters in a matched line other than tab,",
      'and invisible ones such as bidi overrides, are shown as JSON escapes (ESC as \\u001b, CR as \\r,',
      'U+202E as \\u202e), and a footer says when.',
      'A capped result names a file holding every match. A search reported incomplete missed the paths',
      `it names. ${QUOTED_PATHS}`,
    ].join(' '),
  },
]
