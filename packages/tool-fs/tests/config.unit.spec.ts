import { describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as toolFs from '@dsh/tool-fs'
import { FakeFs } from './fake-fs.js'

const load = (config: Record<string, unknown>) =>
  loadHarness({ plugins: [toolFs], services: { fs: new FakeFs() }, config: { 'tool-fs': config } })

describe('Config', () => {
  it('documents a default for every field', () => {
    for (const [field, schema] of Object.entries(toolFs.Config.shape)) expect(schema.description, field).toMatch(/@default (\d+|dsh)$/)
  })

  it('fills the documented defaults', () => {
    expect(toolFs.Config.parse({})).toEqual({
      profile: 'dsh',
      readMaxLines: 2000,
      readMaxLineBytes: 2000,
      readMaxBytes: 50_000,
      timeoutMs: 30_000,
    })
  })

  it.each([
    ['readMaxLines', 0],
    ['readMaxLines', 100_001],
    ['readMaxLineBytes', 0],
    ['readMaxLineBytes', 1_000_001],
    ['readMaxBytes', 0],
    ['readMaxBytes', 10_000_001],
    ['timeoutMs', 0],
    ['timeoutMs', 3_600_001],
    ['timeoutMs', 1.5],
  ])('rejects %s = %s, naming the field', async (field, value) => {
    await expect(load({ [field]: value })).rejects.toThrow(new RegExp(`^plugin tool-fs: invalid config: ${field}: `))
  })

  it('rejects an unknown field', async () => {
    await expect(load({ maxLines: 10 })).rejects.toThrow(/Unrecognized key: "maxLines"/)
  })
})
