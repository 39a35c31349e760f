// Converts Seal-Tools (github.com/fairyshine/Seal-Tools, Apache-2.0) into the benchmark's catalog and queries.
// Usage: npx tsx packages/tool-search/bench/seal-tools/convert.ts SEAL_TOOLS_DATASET_DIR
// where the directory is a checkout's Seal-Tools_Dataset (tool.jsonl, dev.jsonl, test_*.jsonl).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

interface SealTool {
  api_name: string
  api_description: string
}
interface SealQuery {
  id: string
  query: string
  calling: { api: string }[]
}

/** The splits kept: dev is where weights may be chosen; the two test splits are what the benchmark reports. */
const SPLITS = { dev: 'dev.jsonl', test: 'test_in_domain.jsonl', 'test-out-domain': 'test_out_domain.jsonl' } as const

/**
 * Words a person drops when typing keywords into a search box instead of asking in a sentence. The
 * benchmark's own list, kept apart from the scorer's stop words so the keyword form does not echo them.
 */
const REQUEST_WORDS = new Set(
  (
    'a an the and or of to in on at by for from with about as is are be it its this that these those my me i we our you your ' +
    'please can could would will should do does tell give show provide get let know want need help find some any all what which ' +
    'who whom how when where there their them they he she his her also like new named called using use'
  ).split(' '),
)

/** The most words a keyword query keeps. */
const KEYWORD_MAX_WORDS = 4

/**
 * A query as keywords: quoted values and words with digits (ids, dates, amounts) dropped, then the
 * words of a request, keeping the first four. A fixed rule over the query alone, never over its answer.
 */
export function keywordForm(query: string): string {
  const words = query
    .replace(/"[^"]*"|“[^”]*”|'[^']*'/g, ' ')
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((word) => word !== '' && !/\d/.test(word) && !REQUEST_WORDS.has(word))
  return words.slice(0, KEYWORD_MAX_WORDS).join(' ')
}

/**
 * A tool name as dsh accepts one: ASCII letters, digits, `_` and `-`, each other character becoming `_`
 * as the gateway names MCP tools (a few Seal-Tools names hold a space).
 */
function toolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_')
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
}

const source = process.argv[2]
if (source === undefined) throw new Error('usage: convert.ts SEAL_TOOLS_DATASET_DIR')
const out = new URL('./', import.meta.url)
const tools = readJsonl<SealTool>(join(source, 'tool.jsonl')).map((tool) => ({
  name: toolName(tool.api_name),
  description: tool.api_description,
}))
const names = new Set(tools.map((tool) => tool.name))
if (names.size !== tools.length) throw new Error('two tool names are alike once cleaned')
const queries = Object.entries(SPLITS).flatMap(([split, file]) =>
  readJsonl<SealQuery>(join(source, file))
    // One tool per query: a query that needs several has no single right answer to rank first.
    .filter((query) => query.calling.length === 1 && names.has(toolName(query.calling[0]!.api)))
    .map((query) => ({
      split,
      id: query.id,
      query: query.query,
      keywords: keywordForm(query.query),
      tool: toolName(query.calling[0]!.api),
    })),
)
writeFileSync(new URL('tools.json', out), `${JSON.stringify(tools, null, 0).replaceAll('},{', '},\n{')}\n`)
writeFileSync(new URL('queries.json', out), `${JSON.stringify(queries, null, 0).replaceAll('},{', '},\n{')}\n`)
console.log(`${tools.length} tools, ${queries.length} queries`)
