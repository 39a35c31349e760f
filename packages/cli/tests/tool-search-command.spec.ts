// `dsh tool-search` against catalog files: what an agent builder sees of how their catalog ranks.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { EXIT } from '@dsh/cli'
import { CATALOG_ROWS } from '../../tool-search/tests/catalog.js'
import { dsh, scratchDir } from './io.js'

const dir = scratchDir('tool-search-command')
const catalog = join(dir, 'catalog.json')
beforeAll(() => writeFileSync(catalog, JSON.stringify(CATALOG_ROWS)))

const run = (argv: readonly string[]) => dsh(['tool-search', ...argv], dir)

describe('dsh tool-search', () => {
  it('prints what tool_search tells a model, for the 150-tool catalog', async () => {
    expect(await run(['send a slack message', '--catalog', 'catalog.json', '--max-results', '2'])).toEqual({
      code: EXIT.ok,
      stdout:
        'Loaded 2 tools; their schemas are in your tool list now:\n' +
        '- mcp__slack__send_message: Send a message to a Slack channel or direct message.\n' +
        '- mcp__slack__schedule_message: Schedule a message to be posted later.\n',
      stderr: '',
    })
  })

  it('prints the matches with their scores as JSON', async () => {
    const { code, stdout } = await run(['--format', 'json', 'notebook jupyter', '--catalog', catalog, '--max-results', '3'])
    expect(code).toBe(EXIT.ok)
    expect(JSON.parse(stdout)).toEqual({
      isError: false,
      content: expect.stringMatching(/^Loaded 3 tools/),
      mode: 'keywords',
      matches: [
        { name: 'mcp__jupyter__create_notebook', score: 9.163 },
        { name: 'mcp__jupyter__read_notebook', score: 9.016 },
        { name: 'NotebookEdit', score: 8.618 },
      ],
      pendingServers: [],
    })
  })

  it('adds the terms that earned each score with --explain', async () => {
    const json = await run(['--format', 'json', 'jupyter notebooks', '--catalog', catalog, '--max-results', '1', '--explain'])
    expect(JSON.parse(json.stdout)).toMatchObject({
      matches: [
        {
          name: 'mcp__jupyter__create_notebook',
          score: expect.any(Number),
          terms: [
            { term: 'jupyter', points: expect.any(Number), fields: [{ field: 'name', match: 'exact' }] },
            {
              term: 'notebooks',
              points: expect.any(Number),
              fields: [
                { field: 'name', match: 'stem' },
                { field: 'description', match: 'stem' },
              ],
            },
          ],
        },
      ],
    })
    const text = await run(['jupyter notebooks', '--catalog', catalog, '--max-results', '1', '--explain'])
    expect(text.stdout).toMatch(
      /^Loaded 1 tool;.*\n- mcp__jupyter__create_notebook: .*\nscore [\d.]+ mcp__jupyter__create_notebook: jupyter [\d.]+ \(name\), notebooks [\d.]+ \(name stem, description stem\)\n$/,
    )
    const select = await run(['select:WebFetch', '--catalog', catalog, '--explain'])
    expect(select.stdout).toBe(
      'Loaded 1 tool; its schema is in your tool list now:\n- WebFetch: Fetch a web page and answer a question about it.\n',
    )
  })

  it('ranks with the seed point table under --config {"tool-search": {"scoring": "claude-code"}}', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ 'tool-search': { scoring: 'claude-code' } }))
    const { stdout } = await run([
      '--format',
      'json',
      'notebook jupyter',
      '--catalog',
      catalog,
      '--max-results',
      '2',
      '--config',
      'config.json',
    ])
    expect((JSON.parse(stdout) as { matches: unknown }).matches).toEqual([
      { name: 'mcp__jupyter__create_notebook', score: 26 },
      { name: 'mcp__jupyter__read_notebook', score: 26 },
    ])
  })

  it('prints the selected names one a line, or NUL-terminated, and reports unknown names in select:', async () => {
    expect((await run(['select:WebFetch, nope ,WebFetch', '--catalog', catalog, '--format', 'lines'])).stdout).toBe('WebFetch\n')
    expect((await run(['select:WebFetch', '--catalog', catalog, '-0'])).stdout).toBe('WebFetch\0')
    const json = JSON.parse((await run(['select:WebFetch,nope', '--catalog', catalog, '--format', 'json'])).stdout) as object
    expect(json).toMatchObject({ mode: 'select', matches: [{ name: 'WebFetch' }], unknown: ['nope'] })
  })

  it('takes regular-expression characters and a leading dash literally', async () => {
    expect(await run(['--catalog', catalog, '--', '-xyzzy .* [ (a|b)'])).toEqual({
      code: EXIT.nothingFound,
      stdout: 'No matching deferred tools found.\n',
      stderr: '',
    })
  })

  it('finds nothing without a catalog: dsh defers none of its own tools', async () => {
    expect(await run(['grep'])).toEqual({ code: EXIT.nothingFound, stdout: 'No matching deferred tools found.\n', stderr: '' })
  })

  it('reports an empty query as tool_search does: exit 2, on stderr or as the JSON object', async () => {
    const text = await run(['   ', '--catalog', catalog])
    expect(text).toMatchObject({ code: EXIT.error, stdout: '' })
    expect(text.stderr).toMatch(/^invalid arguments for tool_search: query: is empty/)
    const json = await run(['', '--format', 'json'])
    expect(json.code).toBe(EXIT.error)
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
  })

  it('refuses a hostile catalog with a usage error that names the problem', async () => {
    writeFileSync(join(dir, 'dup.json'), JSON.stringify([CATALOG_ROWS[0], CATALOG_ROWS[0]]))
    const result = await run(['x', '--catalog', 'dup.json'])
    expect(result).toMatchObject({ code: EXIT.usage, stdout: '' })
    expect(result.stderr).toMatch(
      /^dsh: catalog .*dup\.json names "mcp__slack__send_message" twice: entries 0 and 1\nRun dsh tool-search --help for usage\.\n$/,
    )
  })

  it('describes itself with --help', async () => {
    expect((await run(['--help'])).stdout).toMatch(/^Usage: dsh tool-search QUERY \[--catalog FILE\]\n.*--explain/s)
  })
})
