import { beforeAll, describe, expect, it } from 'vitest'
import type { ToolDefinition } from '@dsh/core'
import { RARITY_WEIGHTS } from '@dsh/tool-search'
import { parseQuery } from '../src/query.js'
import type { SearchableTool } from '../src/rank.js'
import { createRarityRanker, queryTerms } from '../src/rarity-rank.js'
import { catalogHarness } from './harness.js'

function rankWithTerms(tools: readonly SearchableTool[], query: string, maxResults = 5) {
  const parsed = parseQuery(query)
  if (parsed.mode !== 'keywords') throw new Error(`${query} is not a keyword query`)
  return createRarityRanker(tools).rank(parsed, maxResults)
}

const names = (tools: readonly SearchableTool[], query: string, maxResults = 5) =>
  rankWithTerms(tools, query, maxResults).map((m) => m.name)
const tool = (name: string, description: string, extra: Partial<SearchableTool> = {}): SearchableTool => ({
  name,
  description,
  isMcp: false,
  ...extra,
})

describe('queryTerms', () => {
  it.each([
    // Punctuation at a word's edges goes; stop words go; each term once.
    [
      ['bin?', 'field.', '"quoted"'],
      ['bin', 'field', 'quoted'],
    ],
    [
      ['find', 'a', 'file', 'in', 'the', 'repo', 'file'],
      ['find', 'file', 'repo'],
    ],
    // A word is split as a tool name is, then as text.
    [
      ['send_message', 'createissue', 'mcp__slack__post'],
      ['send', 'message', 'createissue', 'slack', 'post'],
    ],
    [
      ['c++', '.*', '[', 'node.js'],
      ['c', 'node', 'js'],
    ],
    // An unspaced script becomes character pairs.
    [['发送消息'], ['发送', '送消', '消息']],
  ])('reads %j as %j', (words, terms) => {
    expect(queryTerms(words)).toEqual(terms)
  })
})

describe('the rarity scorer: evidence, not points per field', () => {
  const fileTools = [
    tool('read_file', 'Read the complete contents of a file from the file system.'),
    tool('read_multiple_files', 'Read the contents of multiple files at once.'),
    tool('list_directory', 'List the files and directories in a path.'),
    tool('write_file', 'Create a new file or overwrite an existing one.'),
  ]

  it('ranks an exact word above its stem, so read file finds read_file first', () => {
    expect(names(fileTools, 'read file', 2)).toEqual(['read_file', 'read_multiple_files'])
    const [, multiple] = rankWithTerms(fileTools, 'read file', 2)
    expect(multiple!.terms.find((t) => t.term === 'file')!.fields).toEqual([
      { field: 'name', match: 'stem' },
      { field: 'description', match: 'stem' },
    ])
  })

  it('meets a plural with its singular: directories finds list_directory', () => {
    const [first] = rankWithTerms(fileTools, 'directories')
    expect(first).toMatchObject({
      name: 'list_directory',
      terms: [
        {
          term: 'directories',
          fields: [
            { field: 'name', match: 'stem' },
            { field: 'description', match: 'exact' },
          ],
        },
      ],
    })
  })

  it('scores a stem below the exact word, never equal to it', () => {
    const exact = rankWithTerms([tool('copy', 'Copies.'), tool('copies', 'Copies.')], 'copy')
    expect(exact.map((m) => m.name)).toEqual(['copy', 'copies'])
    expect(exact[0]!.score).toBeGreaterThan(exact[1]!.score)
  })

  it('weighs a rare word above a common one, whatever field each is in', () => {
    const common = Array.from({ length: 20 }, (_, at) => tool(`get_thing${at}`, `Get thing number ${at}.`))
    const weather = tool('fetch_data', 'Fetch the weather forecast for a city.')
    expect(names([...common, weather], 'get forecast', 1)).toEqual(['fetch_data'])
  })

  it('weighs a name word above the same word in a description', () => {
    const ranked = rankWithTerms([tool('archive', 'Stores it.'), tool('store', 'Archive it.')], 'archive', 2)
    expect(ranked.map((m) => m.name)).toEqual(['archive', 'store'])
    expect(RARITY_WEIGHTS.name).toBeGreaterThan(RARITY_WEIGHTS.description)
  })

  it('scores a word once however often the query repeats it', () => {
    const tools = [
      tool('mcp__slack__post', 'Post to Slack.', { isMcp: true }),
      tool('mcp__github__issue', 'Open an issue.', { isMcp: true }),
    ]
    expect(rankWithTerms(tools, 'slack slack slack issue')).toEqual(rankWithTerms(tools, 'slack issue'))
  })

  it('matches a short word only as a whole word, never inside a name part', () => {
    const tools = [tool('get_address_info', 'Look up a postal code.'), tool('toggle', 'Turn on or off.')]
    for (const query of ['a', 'in', 'to', 'ad', 'in to a']) expect(names(tools, query)).toEqual([])
    expect(rankWithTerms(tools, 'addr')[0]).toMatchObject({
      name: 'get_address_info',
      terms: [{ term: 'addr', fields: [{ field: 'name', match: 'part' }] }],
    })
    expect(RARITY_WEIGHTS.partMinChars).toBe(3)
  })

  it('finds a compound written as one word in the names with their separators removed', () => {
    const tools = [tool('mcp__github__create_issue', 'Open.', { isMcp: true }), tool('mcp__jira__create-issue', 'Open.', { isMcp: true })]
    expect(rankWithTerms(tools, 'createissue').map((m) => m.terms)).toEqual([
      [{ term: 'createissue', points: expect.any(Number), fields: [{ field: 'name', match: 'part' }] }],
      [{ term: 'createissue', points: expect.any(Number), fields: [{ field: 'name', match: 'part' }] }],
    ])
    expect(names(tools, 'githubcreate')).toEqual(['mcp__github__create_issue'])
    expect(names(tools, 'issuecreate')).toEqual([])
  })

  it('matches Chinese and Japanese text by character pairs', () => {
    const tools = [
      tool('send_message', '向频道发送一条消息。'),
      tool('list_users', '列出工作区的所有用户。'),
      tool('translate', '日本語の文章を英語に翻訳します。'),
    ]
    expect(names(tools, '发送消息')).toEqual(['send_message'])
    expect(names(tools, '用户')).toEqual(['list_users'])
    expect(names(tools, '翻訳')).toEqual(['translate'])
    expect(names(tools, '发')).toEqual([])
    expect(names([tool('one', '一')], '一')).toEqual(['one'])
  })

  it('searches the hint, between the name and the description in weight', () => {
    const tools = [tool('a_tool', 'Does things.', { searchHint: 'jupyter ipynb' }), tool('b_tool', 'Opens ipynb files.')]
    expect(rankWithTerms(tools, 'ipynb').map((m) => [m.name, m.terms[0]!.fields])).toEqual([
      ['a_tool', [{ field: 'hint', match: 'exact' }]],
      ['b_tool', [{ field: 'description', match: 'exact' }]],
    ])
  })

  it('gives each term its share of the score', () => {
    const [match] = rankWithTerms(fileTools, 'read the files, please')
    expect(match!.terms.map((t) => t.term)).toEqual(['read', 'files'])
    expect(match!.terms.reduce((sum, t) => sum + t.points, 0)).toBeCloseTo(match!.score, 2)
  })

  it('finds nothing in an empty catalog, or for stop words and punctuation alone', () => {
    expect(names([], 'read')).toEqual([])
    expect(names(fileTools, 'the of . ?')).toEqual([])
  })
})

describe('the rarity scorer keeps the seed guarantees', () => {
  let deferred: ToolDefinition[]
  beforeAll(async () => {
    deferred = (await catalogHarness()).registry.deferred()
  })

  it('puts a tool named exactly first, above higher scores, in any case', () => {
    const ranked = rankWithTerms(deferred, 'slack send message to channel mcp__time__get_current_time')
    expect(ranked[0]!.name).toBe('mcp__time__get_current_time')
    expect(ranked[1]!.score).toBeGreaterThan(ranked[0]!.score)
    expect(names(deferred, 'MCP__SLACK__SEND_MESSAGE', 1)).toEqual(['mcp__slack__send_message'])
    const twins = [tool('Fetch', 'A.'), tool('fetch', 'B.'), tool('fetcher', 'Fetch it.')]
    expect(names(twins, 'fetch')).toEqual(['Fetch', 'fetch', 'fetcher'])
  })

  it('keeps a tool named exactly even when its name holds no scoring word', () => {
    expect(rankWithTerms([tool('the', 'A stop word.'), tool('other', 'Something.')], 'the')).toEqual([{ name: 'the', score: 0, terms: [] }])
  })

  it('keeps only the tools every +term reaches, stop words and symbols included', () => {
    expect(names(deferred, '+github pull request', 50).every((name) => name.startsWith('mcp__github__'))).toBe(true)
    expect(names(deferred, 'pull request', 50).some((name) => !name.startsWith('mcp__github__'))).toBe(true)
    expect(names(deferred, '+jira +sprint', 50)).toEqual(['mcp__jira__create-sprint', 'mcp__jira__get-sprint-issues'])
    expect(names(deferred, '+jira +nothingmatches issue', 50)).toEqual([])
    // A stop word scores nothing, yet a +stop word must still be there.
    const tools = [tool('send_to', 'Send to a channel.'), tool('send_away', 'Send a message.')]
    expect(names(tools, 'send +to')).toEqual(['send_to'])
    // A required term without a word in it is found literally, never as a pattern.
    const symbols = [tool('glob', 'Match paths like src/**.'), tool('grep', 'Search with .* patterns.')]
    expect(names(symbols, 'match +**')).toEqual(['glob'])
    expect(names(symbols, 'patterns +.*')).toEqual(['grep'])
    expect(names(symbols, 'match +.+')).toEqual([])
  })

  it('reads regular-expression characters as themselves', () => {
    expect(names(deferred, '.*')).toEqual([])
    expect(names(deferred, '[')).toEqual([])
    expect(names(deferred, 'c++')).toEqual(['LSP'])
  })

  it('orders equal scores by name and returns at most maxResults', () => {
    const all = rankWithTerms(deferred, 'createIssue', 50)
    expect(all.map((m) => [m.name, m.score])).toEqual([
      ['mcp__github__create_issue', 4.618],
      ['mcp__jira__create-issue', 4.618],
      ['mcp__linear__createIssue', 4.618],
    ])
    expect(rankWithTerms(deferred, 'slack', 2)).toHaveLength(2)
  })

  it('is the same for the same query, whatever order the tools come in', () => {
    const reversed = [...deferred].reverse()
    for (const query of ['slack', 'issue', 'browser', 'create', 'read file', '+github pull']) {
      expect(rankWithTerms(reversed, query, 50)).toEqual(rankWithTerms(deferred, query, 50))
    }
  })

  it('explains each result with the terms that earned its score', () => {
    for (const query of ['slack send', 'take a screenshot of the page', 'pull requests', 'createIssue', 'notebooks ipynb']) {
      for (const match of rankWithTerms(deferred, query, 10)) {
        expect(match.terms.length).toBeGreaterThan(0)
        expect(match.terms.reduce((sum, t) => sum + t.points, 0)).toBeCloseTo(match.score, 2)
      }
    }
  })
})

describe('the rarity scorer over the catalog of 150 tools', () => {
  let deferred: ToolDefinition[]
  beforeAll(async () => {
    deferred = (await catalogHarness()).registry.deferred()
  })

  it.each([
    // The action is the rarer word: send outranks slack, which 15 tools share.
    ['slack send', ['mcp__slack__send_message', 'HTTPRequest', 'mcp__slack__search_messages'], [10.544, 3.801, 3.773]],
    ['notebook jupyter', ['mcp__jupyter__create_notebook', 'mcp__jupyter__read_notebook', 'NotebookEdit'], [9.163, 9.016, 8.618]],
    ['issue create linear', ['mcp__linear__createIssue', 'mcp__linear__createComment', 'mcp__linear__createProject'], [10.104, 8.97, 7.46]],
    ['transition', ['mcp__jira__transition-issue', 'mcp__jira__get-transitions'], [6.437, 5.036]],
    ['ipynb', ['mcp__jupyter__read_notebook', 'NotebookEdit'], [5.574, 4.35]],
    ['http', ['HTTPRequest', 'WebFetch'], [7.199, 3.567]],
    // Stop words and the question mark go; screenshot and take are what is left.
    [
      'take a screenshot of the page?',
      ['mcp__playwright__browser_take_screenshot', 'mcp__puppeteer__puppeteer_screenshot', 'mcp__playwright__browser_snapshot'],
      [14.585, 12.631, 4.055],
    ],
    ['read file', ['mcp__gdrive__read_file', 'ReadMcpResource', 'mcp__jupyter__read_notebook'], [9.845, 5.062, 5.002]],
    ['query database', ['mcp__notion__query_database', 'mcp__postgres__query', 'mcp__postgres__list_tables'], [13.154, 7.256, 3.923]],
    [
      'send a message to the slack channel',
      ['mcp__slack__send_message', 'mcp__slack__get_channel_history', 'mcp__slack__search_messages'],
      [17.692, 9.598, 9.226],
    ],
  ])('ranks %j', (query, expectedNames, scores) => {
    const ranked = rankWithTerms(deferred, query, 3)
    expect(ranked.map((m) => m.name)).toEqual(expectedNames)
    expect(ranked.map((m) => m.score)).toEqual(scores)
  })
})
