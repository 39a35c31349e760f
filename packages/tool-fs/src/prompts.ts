// What the read tool tells a model about what it shows.
import type { PromptSection } from '@dsh/core'
import { BINARY_SNIFF_BYTES, type ReadConfig } from './config.js'

/** What the read tool's schema tells a model. */
export function readDescription(config: ReadConfig): string {
  return [
    "Read a text file's lines, numbered like `cat -n`: the line number, a tab, then the line.",
    `Shows ${config.readMaxLines} lines from the start unless \`offset\` (1-based) and \`limit\` choose another window;`,
    `a page also ends before passing ${config.readMaxBytes} bytes of text. A line longer than`,
    `${config.readMaxLineBytes} bytes is cut and marked. When the file goes on, a footer gives the offset to read on from.`,
    `Directories and binary files (a NUL byte in the first ${BINARY_SNIFF_BYTES} bytes) are refused; bytes that are not`,
    'valid UTF-8 are shown as U+FFFD. `path` is absolute or relative to the working directory: any file glob or grep',
    'lists, or the file a capped result says it is stored at.',
  ].join(' ')
}

/** The system-prompt section registered with the tool. */
export function readPromptSection(config: ReadConfig): PromptSection {
  return {
    id: 'tool-fs/read',
    tool: 'read',
    text: [
      'Use read to see the contents of a file: the files grep and glob list, and the file a capped search',
      'result says it is stored at, which holds the result in full. A long file comes a page at a time; read',
      'on with the offset the footer gives. The line numbers and the tab after them are not part of the',
      `file. A line cut at ${config.readMaxLineBytes} bytes cannot be shown whole: grep for the text inside it. read`,
      'refuses directories (list them with glob) and binary files.',
    ].join(' '),
  }
}

/** Read's section, for the `claude-code` profile: the same advice under Claude Code's tool names. */
export function claudeReadPromptSection(config: ReadConfig): PromptSection {
  return {
    id: 'tool-fs/Read',
    tool: 'Read',
    text: [
      'Use Read, not cat, head or tail, to see the contents of a file: the files Grep and Glob list, and the',
      'file a capped search result says it is stored at. A long file comes a page at a time; read on with',
      'the offset the footer gives. The line numbers and the tab after them are not part of the file. A line',
      `cut at ${config.readMaxLineBytes} bytes cannot be shown whole: Grep for the text inside it. Read refuses`,
      'directories (list them with Glob) and binary files.',
    ].join(' '),
  }
}
