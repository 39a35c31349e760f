// `dsh tool-search QUERY`: one tool_search call, as a model would make it, printed for a person or a program.
import type { ToolResult, ToolRegistry } from '@dsh/core'
import type { ScoredTool, TermEvidence, ToolSearchValue } from '@dsh/tool-search'
import { EXIT, type CliIo } from './cli-io.js'
import type { CommonOptions } from './command-line.js'

/** What the command runs with. */
export interface ToolSearchRun {
  query: string
  maxResults: number | undefined
  /** Show the terms that earned each keyword match's score. */
  explain: boolean
  registry: ToolRegistry
  /** The session the search loads tools into, as a model's would. */
  agent: { session: { header: { id: string; cwd: string } } }
  signal: AbortSignal
}

/**
 * Runs tool_search and prints: the model's text; with `--format json` one object with the matches and
 * their scores (`{isError, content, mode, matches: [{name, score}], pendingServers}`); with lines, the
 * matched names. `--explain` adds the terms that earned each score: each match's `terms` in JSON, a
 * line per match after the text. Exit 0 when a tool was found (and loaded), 1 when none was, 2 on a
 * failure (an empty query), whose message goes to stderr or stays on stdout as JSON.
 */
export async function runToolSearchCommand(
  run: ToolSearchRun,
  common: CommonOptions,
  io: Pick<CliIo, 'stdout' | 'stderr'>,
): Promise<number> {
  const args = { query: run.query, ...(run.maxResults === undefined ? {} : { max_results: run.maxResults }) }
  const result: ToolResult = await run.registry.execute('tool_search', args, { agent: run.agent, signal: run.signal })
  if (common.format === 'json') {
    const printed = result.isError
      ? { isError: true, errorCode: result.errorCode, content: result.content }
      : { isError: false, content: result.content, ...explained(result.value as ToolSearchValue, run.explain) }
    io.stdout.write(`${JSON.stringify(printed)}\n`)
  } else if (result.isError) {
    io.stderr.write(`${result.content}\n`)
  } else if (common.format === 'lines') {
    io.stdout.write((result.value as ToolSearchValue).matches.map((match) => `${match.name}${common.nul ? '\0' : '\n'}`).join(''))
  } else {
    const value = result.value as ToolSearchValue
    const lines = run.explain && value.mode === 'keywords' ? value.matches.map(explainMatch) : []
    io.stdout.write([result.content, ...lines].map((line) => `${line}\n`).join(''))
  }
  if (result.isError) return EXIT.error
  return (result.value as ToolSearchValue).matches.length > 0 ? EXIT.ok : EXIT.nothingFound
}

/** The value as printed: a keyword match's terms only when asked for, since they outweigh the rest. */
type KeywordsValue = Extract<ToolSearchValue, { mode: 'keywords' }>

function explained(
  value: ToolSearchValue,
  explain: boolean,
): ToolSearchValue | (Omit<KeywordsValue, 'matches'> & { matches: Omit<ScoredTool, 'terms'>[] }) {
  if (value.mode === 'select' || explain) return value
  return { ...value, matches: value.matches.map(({ name, score }) => ({ name, score })) }
}

/** `score 10.544 mcp__slack__send_message: send 6.771 (name, description), slack 3.773 (name)` */
function explainMatch(match: ScoredTool): string {
  return `score ${match.score} ${match.name}: ${match.terms.map(explainTerm).join(', ')}`
}

function explainTerm(term: TermEvidence): string {
  const fields = term.fields.map(({ field, match }) => (match === 'exact' ? field : `${field} ${match}`))
  return `${term.term} ${term.points} (${fields.join(', ')})`
}
