// What Claude Code's surface tells a model: our own words for what Glob, Grep and Read see.
import type { PromptSection } from '@dsh/core'
import { LINKS } from '../engine/links.js'
import { VCS_EXCLUDES } from '../engine/vcs.js'

const vcs = VCS_EXCLUDES.join(', ')

/** Grep's description: what it searches, what each mode shows, and how pages go on. */
export const GREP_TOOL_DESCRIPTION = [
  'Search file contents with a regular expression (ripgrep syntax); use this, not grep or rg in a shell.',
  'Searches hidden files but skips files excluded by .ignore or .rgignore, or by .gitignore inside a git',
  `repository; binary files; and VCS metadata directories (${vcs}). ${LINKS}.`,
  'output_mode "files_with_matches" (default) lists matching files newest modified first; "count" gives',
  '`path:count` per file and the totals; "content" gives matching lines grouped by file as `Line N: text`,',
  'context lines (-A, -B, -C) as `Line N- text`, and `--` where lines are skipped. Results are complete and',
  'counted: a page shows at most head_limit entries (default 250, 0 for as many as fit) from offset, and a',
  'capped page says how many there are, the offset to continue from, and where the complete result is stored.',
].join(' ')

/** The system-prompt sections registered with Claude Code's surface. */
export const CLAUDE_CODE_PROMPT_SECTIONS: readonly PromptSection[] = [
  {
    id: 'tool-fs-search/Glob',
    tool: 'Glob',
    text: [
      'Use Glob, not find or ls, to find files by name or path pattern. It lists regular files, ignored and',
      `hidden ones too, except under VCS metadata directories. ${LINKS}. Results come newest`,
      'modified first; a capped result names a file holding the complete list.',
    ].join(' '),
  },
  {
    id: 'tool-fs-search/Grep',
    tool: 'Grep',
    text: [
      `Use Grep, not grep or rg in a shell, to search file contents. ${LINKS}. Start with files_with_matches to find`,
      'where, then content with -C for the lines. It honours ignore files: a file in node_modules or another',
      'ignored directory is not searched unless path names it, so "no matches" does not prove a text is',
      'absent there. A long line shows part of itself: "(cut)" marks its start, "(cut; columns A-B)" its',
      'bytes A to B around its first match; use Read for the rest. Totals are exact; to',
      'see more than a page, call again with the offset the footer gives, or Read the stored result. A path',
      'holding a control or invisible character is shown JSON-quoted with escapes; in a line, such characters',
      'are shown escaped (\\u001b, \\u202e).',
    ].join(' '),
  },
]
