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

  it('provides its settings as the mcpTransport service, the defaults unless configured', async () => {
    expect((await loadHarness({ plugins: [mcp] })).get('mcpTransport')).toEqual(mcp.MCP_TRANSPORT_DEFAULTS)
    expect(mcp.MCP_TRANSPORT_DEFAULTS).toEqual({
      messageMaxBytes: 4 * 1024 * 1024,
      httpMaxSessions: 64,
      httpSessionIdleMs: 30 * 60_000,
      httpRequestTimeoutMs: 30_000,
    })
    const configured = await loadHarness({ plugins: [mcp], config: { mcp: { messageMaxBytes: 65_536, httpMaxSessions: 2 } } })
    expect(configured.get('mcpTransport')).toEqual({ ...mcp.MCP_TRANSPORT_DEFAULTS, messageMaxBytes: 65_536, httpMaxSessions: 2 })
  })

  it.each([
    [{ messageMaxBytes: 65_535 }, /messageMaxBytes: Too small: expected number to be >=65536/],
    [{ messageMaxBytes: 256 * 1024 * 1024 + 1 }, /messageMaxBytes: Too big: expected number to be <=268435456/],
    [{ messageMaxBytes: 1_500_000.5 }, /messageMaxBytes: Invalid input: expected int, received number/],
    [{ maxMessageBytes: 1 }, /Unrecognized key: "maxMessageBytes"/],
    [{ httpMaxSessions: 0 }, /httpMaxSessions: Too small: expected number to be >=1/],
    [{ httpSessionIdleMs: 999 }, /httpSessionIdleMs: Too small: expected number to be >=1000/],
    [{ httpRequestTimeoutMs: 99 }, /httpRequestTimeoutMs: Too small: expected number to be >=100/],
  ])('refuses the config %j', async (config, message) => {
    await expect(loadHarness({ plugins: [mcp], config: { mcp: config } })).rejects.toThrow(message)
  })
})
