import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { InMemoryTransport, type ResourceLink } from '@modelcontextprotocol/client'
import { Server } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness } from '@dsh/core'
import { createDshMcpServer } from '@dsh/mcp'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { addOnClose } from '../src/server.js'
import { connect, silentLogger, testHarness } from './fixtures.js'

describe('createDshMcpServer', () => {
  it("returns the SDK's server, which reports protocol trouble to the logger and not to stdout", async () => {
    const { harness } = await testHarness()
    const logger = silentLogger()
    const server = createDshMcpServer({ harness, fallbackCwd: '/', session: 'mcp', name: 'dsh', version: '1', logger })
    expect(server).toBeInstanceOf(Server)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    await clientSide.start()
    await clientSide.send({ jsonrpc: '2.0', id: 42, result: {} })
    expect(logger.lines).toEqual([expect.stringMatching(/^warn: mcp: Received a response for an unknown message ID/)])
    await server.close()
  })
})

describe('addOnClose', () => {
  it('runs the handler a server had when it closes, then the one added, and the added one alone where it had none', () => {
    const server = new Server({ name: 'dsh', version: '1' }, { capabilities: {} })
    const ran: string[] = []
    addOnClose(server, () => ran.push('first'))
    addOnClose(server, () => ran.push('second'))
    server.onclose!()
    expect(ran).toEqual(['first', 'second'])
  })
})

describe('the dsh harness over MCP (real bash-local and rg)', () => {
  const tree = scratchDir('mcp-tree')
  const spill = scratchDir('mcp-spill')

  it('greps past its cap, links the spilled result, and resources/read returns all of it', async () => {
    writeFileSync(join(tree, 'a.txt'), Array.from({ length: 5 }, (_, i) => `needle ${i + 1}\n`).join(''))
    // The plugins `dsh` loads for grep, as its harness wires them.
    const harness = await loadHarness({
      plugins: [bashLocal, spillLocal, toolFsSearch],
      config: { 'tool-fs-search': { grepMaxMatches: 3 }, 'spill-local': { root: spill } },
      logger: silentLogger(),
    })
    const connection = await connect(harness, { cwd: tree, session: 'mcp-real' })
    try {
      const { tools } = await connection.client.listTools()
      expect(tools.find((t) => t.name === 'grep')).toMatchObject({
        title: 'Grep',
        annotations: { readOnlyHint: true, openWorldHint: false },
      })
      const result = await connection.client.callTool({ name: 'grep', arguments: { pattern: 'needle' } })
      expect(result.isError).toBe(false)
      const [text, link] = result.content as [{ text: string }, ResourceLink]
      expect(text.text).toContain('needle 3')
      expect(text.text).not.toContain('needle 5')
      expect(link).toMatchObject({ type: 'resource_link', uri: expect.stringMatching(/^dsh-spill:\/\/mcp-real\/.*grep-results\.txt$/) })
      const { contents } = await connection.client.readResource({ uri: link.uri })
      const complete = contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : ''
      for (let i = 1; i <= 5; i++) expect(complete).toContain(`needle ${i}`)
      const saved = text.text.match(/stored at: (\S+)\./)![1]!
      expect(complete).toBe(readFileSync(saved, 'utf8'))
    } finally {
      await connection.close()
    }
  })
})
