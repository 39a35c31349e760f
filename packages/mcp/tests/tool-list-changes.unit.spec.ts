import { Server } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, ToolRegistry } from '@dsh/core'
import { toolListAnnouncer } from '../src/tool-list-changes.js'
import { silentLogger } from './fixtures.js'

describe('toolListAnnouncer', () => {
  it('notes, rather than throws, a change it cannot tell a host that has not connected, and tells it once', async () => {
    const registry = new ToolRegistry()
    const server = new Server({ name: 'dsh', version: '0' }, { capabilities: { tools: { listChanged: true } } })
    const logger = silentLogger()
    const announce = toolListAnnouncer(server, registry, 's1', logger)
    await announce()
    expect(logger.lines).toEqual([])
    registry.register(
      defineTool({ name: 'late', description: 'Came late.', parameters: z.strictObject({}), execute: async () => ({ content: '' }) }),
    )
    await announce()
    await announce()
    expect(logger.lines).toEqual([expect.stringMatching(/^info: mcp: tools\/list_changed not sent: /)])
  })
})
