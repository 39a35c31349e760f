// LangChain's MultiServerMCPClient as the host of the built `dsh mcp --upstream`: it keeps the first tool list, and reaches loaded tools through call_tool.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MultiServerMCPClient } from '@langchain/mcp-adapters'
import { afterEach, describe, expect, it } from 'vitest'
import { NOTES_SCRIPT } from '../../mcp/tests/upstream/servers.js'
import { budgetMs, processesMentioning, scratchDir, waitUntil } from './io.js'

const dir = scratchDir('gateway-langchain')
const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')

const clients: MultiServerMCPClient[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close()
})

let files = 0

/**
 * LangChain's client over the built dsh, fronting the notes server; `config` is dsh's --config file's
 * content. The files' names leave the tag out, or dsh's own command line would mention it.
 */
function langchain(tag: string, config?: object): MultiServerMCPClient {
  const servers = join(dir, `servers-${++files}.json`)
  writeFileSync(servers, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SCRIPT, tag] } } }))
  const configArgs: string[] = []
  if (config !== undefined) {
    const file = join(dir, `config-${files}.json`)
    writeFileSync(file, JSON.stringify(config))
    configArgs.push('--config', file)
  }
  const client = new MultiServerMCPClient({
    mcpServers: { dsh: { transport: 'stdio', command: process.execPath, args: [bin, ...configArgs, 'mcp', '--upstream', servers] } },
  })
  clients.push(client)
  return client
}

describe('dsh mcp --upstream under LangChain', () => {
  it('lists call_tool, through which a tool tool_search loaded is called though the list LangChain holds never shows it', async () => {
    const tag = `langchain-${process.pid}-${Date.now()}`
    const client = langchain(tag)
    const tools = await client.getTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['tool_search', 'call_tool']))
    expect(byName.has('mcp__notes__add_note')).toBe(false)

    // A search made while the upstream is still starting waits for it rather than finding nothing.
    const loaded = await byName.get('tool_search')!.invoke({ query: 'select:mcp__notes__add_note' })
    expect(JSON.stringify(loaded)).toContain('Loaded 1 tool')
    const hostile = 'milk "and" $(eggs)\n--flag'
    const added = await byName.get('call_tool')!.invoke({ name: 'mcp__notes__add_note', arguments: { text: hostile } })
    // The upstream's own text, `added "<the note as JSON>"`, as LangChain hands it on.
    expect(JSON.stringify(added)).toContain(JSON.stringify(`added ${JSON.stringify(hostile)}`).slice(1, -1))

    // A failure is an isError result, which LangChain raises as a ToolException with dsh's message.
    await expect(byName.get('call_tool')!.invoke({ name: 'mcp__notes__list_notes', arguments: {} })).rejects.toThrow(
      /mcp__notes__list_notes is a deferred tool not loaded in this session; load it with tool_search/,
    )
    expect(processesMentioning(tag)).toHaveLength(1)
    await client.close()
    expect(await waitUntil(() => processesMentioning(tag).length === 0, budgetMs(10_000))).toBe(true)
  })

  it('leaves call_tool out when the config turns it off, for hosts that fetch the list again', async () => {
    const client = langchain(`langchain-off-${process.pid}-${Date.now()}`, { mcp: { gatewayCallTool: false } })
    const names = (await client.getTools()).map((tool) => tool.name)
    expect(names).toContain('tool_search')
    expect(names).not.toContain('call_tool')
  })
})
