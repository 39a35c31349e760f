// `npm run bench:tool-search`: retrieval quality on Seal-Tools, the seed's guarantees, the 150-tool catalog's
// ranking, and latency per call, for the rarity scorer beside the seed's table and plain BM25.
// `--split dev` reports the split where weights may be chosen instead of the test splits. @dsh/core
// resolves to its build, which `npm ci` makes (or `npm run build`).
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { defineTool, type ToolCatalog, type ToolDefinition } from '@dsh/core'
import { parseQuery } from '../src/query.js'
import type { SearchableTool } from '../src/rank.js'
import { rankerFor, SCORINGS, type Scoring } from '../src/scoring.js'
import { createToolSearchTool, type ToolSearchValue } from '../src/tool-search.js'
import { catalogHarness } from '../tests/harness.js'
import { createPlainBm25 } from './plain-bm25.js'

interface BenchQuery {
  split: string
  id: string
  query: string
  keywords: string
  tool: string
}

const data = (file: string) => JSON.parse(readFileSync(new URL(`./seal-tools/${file}`, import.meta.url), 'utf8')) as unknown
const sealTools = (data('tools.json') as { name: string; description: string }[]).map((tool) => ({ ...tool, isMcp: false }))
const split = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] : 'test'
const queries = (data('queries.json') as BenchQuery[]).filter((query) =>
  split === 'test' ? query.split === 'test' || query.split === 'test-out-domain' : query.split === split,
)

/** How many queries each latency is measured over. */
const LATENCY_QUERIES = 100

/** How deep MRR looks: a tool ranked below this counts as not found. */
const MRR_DEPTH = 10

type Search = (query: string, maxResults: number) => string[]

function searchWith(scoring: Scoring, tools: readonly SearchableTool[]): Search {
  const ranker = rankerFor(scoring)
  return (query, maxResults) => {
    const parsed = parseQuery(query)
    if (parsed.mode !== 'keywords') return []
    return ranker(tools)
      .rank(parsed, maxResults)
      .map((match) => match.name)
  }
}

interface Recall {
  at1: number
  at3: number
  at5: number
  mrr: number
}

function measureRecall(search: Search, form: 'query' | 'keywords'): Recall {
  const ranks = queries.map((query) => search(query[form], MRR_DEPTH).indexOf(query.tool) + 1)
  const share = (k: number) => ranks.filter((rank) => rank > 0 && rank <= k).length / ranks.length
  const mrr = ranks.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / ranks.length
  return { at1: share(1), at3: share(3), at5: share(5), mrr }
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`.padStart(6)
const searches: Record<string, Search> = {
  rarity: searchWith('rarity', sealTools),
  'claude-code (seed)': searchWith('claude-code', sealTools),
  'plain BM25': createPlainBm25(sealTools),
}
const results: Record<string, Record<'query' | 'keywords', Recall>> = {}
console.log(`Seal-Tools (fairyshine/Seal-Tools, Apache-2.0): ${sealTools.length} tools, ${queries.length} ${split} queries`)
console.log('| scorer | queries | recall@1 | recall@3 | recall@5 | MRR@10 |')
console.log('| --- | --- | ---: | ---: | ---: | ---: |')
for (const form of ['query', 'keywords'] as const) {
  for (const [name, search] of Object.entries(searches)) {
    const recall = measureRecall(search, form)
    ;(results[name] ??= {} as Record<'query' | 'keywords', Recall>)[form] = recall
    const label = form === 'query' ? 'full' : 'keywords'
    console.log(
      `| ${name} | ${label} | ${percent(recall.at1)} | ${percent(recall.at3)} | ${percent(recall.at5)} | ${recall.mrr.toFixed(3)} |`,
    )
  }
}

/** A catalog as the registry serves it: every tool deferred, a fresh array per call as `deferred()` returns. */
function benchCatalog(rows: readonly (SearchableTool & { searchHint?: string })[]): ToolCatalog {
  const parameters = z.strictObject({})
  const tools: ToolDefinition[] = rows.map((row) => defineTool({ ...row, parameters, execute: () => Promise.resolve({ content: '' }) }))
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  return {
    get: (name) => byName.get(name),
    deferred: () => [...tools],
    loadDeferred: () => {},
    pendingServers: () => [],
    serversConnected: () => Promise.resolve(),
    limitUnloadedNames: () => {},
  }
}

async function callToolSearch(tool: ReturnType<typeof createToolSearchTool>, query: string, maxResults = 5): Promise<ToolSearchValue> {
  const output = await tool.execute(
    { query, max_results: maxResults },
    { name: 'tool_search', callId: 'bench', signal: new AbortController().signal },
  )
  return output.value as ToolSearchValue
}

console.log("\nThe seed's guarantees, through tool_search over all Seal-Tools tools:")
const guarantees: Record<string, { exact: number; select: number }> = {}
for (const scoring of SCORINGS) {
  const tool = createToolSearchTool(benchCatalog(sealTools), scoring)
  let exact = 0
  let select = 0
  for (const { name } of sealTools) {
    if ((await callToolSearch(tool, name, 1)).matches[0]?.name === name) exact++
    const selected = await callToolSearch(tool, `select:${name}`)
    if (selected.matches.length === 1 && selected.matches[0]!.name === name) select++
  }
  guarantees[scoring] = { exact: exact / sealTools.length, select: select / sealTools.length }
  console.log(`- ${scoring}: exact name first ${percent(exact / sealTools.length)}, select: ${percent(select / sealTools.length)}`)
}

console.log('\nThe 150-tool catalog (packages/tool-search/tests/catalog.ts), rarity scoring, top 3:')
/** The queries of the ranking table that tests/rarity-rank.spec.ts pins. */
const TABLE_QUERIES = [
  'slack send',
  'notebook jupyter',
  'issue create linear',
  'createIssue',
  'read file',
  'query database',
  'take a screenshot of the page?',
  'send a message to the slack channel',
  'c++',
]
const catalogTool = createToolSearchTool((await catalogHarness()).registry)
for (const query of TABLE_QUERIES) {
  const value = await callToolSearch(catalogTool, query, 3)
  const matches = value.mode === 'keywords' ? value.matches.map((match) => `${match.name} ${match.score}`) : []
  console.log(`- ${JSON.stringify(query)}: ${matches.join(', ') || '(none)'}`)
}

/** `count` tools: Seal-Tools' own, then the same again as other MCP servers' tools (`mcp__copy2__getFilmInfo`). */
function poolOf(count: number): SearchableTool[] {
  return Array.from({ length: count }, (_, at) => {
    const tool = sealTools[at % sealTools.length]!
    const copy = Math.floor(at / sealTools.length)
    return copy === 0 ? tool : { name: `mcp__copy${copy}__${tool.name}`, description: tool.description, isMcp: true }
  })
}

console.log('\nLatency per tool_search call (full queries, 5 results; the first call, which reads the tools, apart):')
const latency: Record<string, number> = {}
for (const size of [500, 10_000]) {
  for (const scoring of SCORINGS) {
    const tool = createToolSearchTool(benchCatalog(poolOf(size)), scoring)
    const started = performance.now()
    await callToolSearch(tool, queries[0]!.query)
    const first = performance.now() - started
    const times: number[] = []
    for (const query of queries.slice(0, LATENCY_QUERIES)) {
      const at = performance.now()
      await callToolSearch(tool, query.query)
      times.push(performance.now() - at)
    }
    times.sort((a, b) => a - b)
    const mean = times.reduce((sum, time) => sum + time, 0) / times.length
    const p95 = times[Math.floor(times.length * 0.95)]!
    if (scoring === 'rarity') latency[size] = mean
    console.log(`- ${size} tools, ${scoring}: mean ${mean.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms; first call ${first.toFixed(1)} ms`)
  }
}

const ours = results.rarity!
const bm25 = results['plain BM25']!
const targets: [string, boolean][] = [
  ['recall@1 above plain BM25, full queries', ours.query.at1 > bm25.query.at1],
  ['recall@5 above plain BM25, full queries', ours.query.at5 > bm25.query.at5],
  ['recall@1 above plain BM25, keyword queries', ours.keywords.at1 > bm25.keywords.at1],
  ['recall@5 above plain BM25, keyword queries', ours.keywords.at5 > bm25.keywords.at5],
  ['exact names first 100%', guarantees.rarity!.exact === 1],
  ['select: 100%', guarantees.rarity!.select === 1],
  ['at most 15 ms per call at 10,000 tools', latency[10_000]! <= 15],
]
console.log('\nTargets:')
for (const [target, met] of targets) console.log(`- ${met ? 'met' : 'MISSED'}: ${target}`)
process.exitCode = targets.every(([, met]) => met) ? 0 : 1
