import { describe, expect, it } from 'vitest'
import { asPlugin, loadHarness } from '@dsh/core'
import * as mcp from '@dsh/mcp/plugin'

describe('the mcp plugin', () => {
  it('is a namespace plugin: name, inject, Config, apply and no default export', () => {
    expect(asPlugin(mcp)).toBe(mcp)
    expect(mcp.name).toBe('mcp')
    expect(mcp.inject).toEqual([])
    expect('default' in mcp).toBe(false)
  })

  it('provides its settings as the mcpTransport service, 4 MiB messages unless configured', async () => {
    expect((await loadHarness({ plugins: [mcp] })).get('mcpTransport')).toEqual({ messageMaxBytes: mcp.MCP_MESSAGE_MAX_BYTES })
    expect(mcp.MCP_MESSAGE_MAX_BYTES).toBe(4 * 1024 * 1024)
    const configured = await loadHarness({ plugins: [mcp], config: { mcp: { messageMaxBytes: 65_536 } } })
    expect(configured.get('mcpTransport')).toEqual({ messageMaxBytes: 65_536 })
  })

  it.each([
    [{ messageMaxBytes: 65_535 }, /messageMaxBytes: Too small: expected number to be >=65536/],
    [{ messageMaxBytes: 256 * 1024 * 1024 + 1 }, /messageMaxBytes: Too big: expected number to be <=268435456/],
    [{ messageMaxBytes: 1_500_000.5 }, /messageMaxBytes: Invalid input: expected int, received number/],
    [{ maxMessageBytes: 1 }, /Unrecognized key: "maxMessageBytes"/],
  ])('refuses the config %j', async (config, message) => {
    await expect(loadHarness({ plugins: [mcp], config: { mcp: config } })).rejects.toThrow(message)
  })
})
