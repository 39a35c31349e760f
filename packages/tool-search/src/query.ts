// A tool_search query read once: exact names after `select:`, or keywords with `+required` ones.

/** What a query asks for. */
export type SearchQuery =
  | { mode: 'select'; names: string[] }
  | {
      mode: 'keywords'
      /** Every term, lower case and without its `+`: all of them score. */
      terms: string[]
      /** The terms written with `+`: a tool none of whose fields matches one is dropped. */
      required: string[]
    }

const SELECT_PREFIX = /^select:/i

/**
 * Reads a query: `select:A, B,A` selects A and B (`select:` in any case; whitespace around names
 * ignored; each name once, compared exactly later); anything else is whitespace-separated keywords,
 * where `+word` is required.
 */
export function parseQuery(query: string): SearchQuery {
  const trimmed = query.trim()
  if (SELECT_PREFIX.test(trimmed)) {
    const names = trimmed
      .replace(SELECT_PREFIX, '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '')
    return { mode: 'select', names: [...new Set(names)] }
  }
  const words = trimmed
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '')
  return {
    mode: 'keywords',
    terms: words.map((word) => (isRequired(word) ? word.slice(1) : word)),
    required: words.filter(isRequired).map((word) => word.slice(1)),
  }
}

/** `+word` is required; a lone "+" is a term like any other, as in Claude Code's ToolSearchTool. */
function isRequired(word: string): boolean {
  return word.startsWith('+') && word.length > 1
}
