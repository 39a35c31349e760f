import { describe, expect, it, vi } from 'vitest'
import { loadHarness, type Logger } from '@dsh/core'
import * as bashLocal from '@dsh/bash-local'

const quiet: Logger = { warn: vi.fn(), info: vi.fn() }

describe('the bash-local plugin', () => {
  it('provides a working bash service through the real loader', async () => {
    const harness = await loadHarness({
      plugins: [bashLocal],
      config: { 'bash-local': { defaultTimeoutMs: 5_000, envSet: { GREETING: 'hello' } } },
      logger: quiet,
    })
    const bash = harness.get('bash')!
    const spec = await bash.resolve({ command: 'echo "$GREETING"' })
    expect(spec.timeoutMs).toBe(5_000)
    expect(await bash.run(spec)).toMatchObject({ exitCode: 0, stdout: { text: 'hello\n' } })
  })

  it('fails the load on a bad config value, naming the plugin and the field', async () => {
    const load = loadHarness({ plugins: [bashLocal], config: { 'bash-local': { killGraceMs: -1 } }, logger: quiet })
    await expect(load).rejects.toMatchObject({
      code: 'PLUGIN_CONFIG_INVALID',
      message: expect.stringMatching(/^plugin bash-local: invalid config: killGraceMs/),
    })
  })

  it('exports the plugin shape and no default export', () => {
    expect(bashLocal.name).toBe('bash-local')
    expect(bashLocal.inject).toEqual([])
    expect('default' in bashLocal).toBe(false)
  })
})
