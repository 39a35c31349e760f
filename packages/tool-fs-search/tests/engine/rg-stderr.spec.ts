import { describe, expect, it } from 'vitest'
import { statRecords } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'

describe("rg's stderr through the registry", () => {
  it('shows the tail of a long stderr', async () => {
    const stderr = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n')
    const { grep } = await fakeHarness(() => ({ exitCode: 9, stderr }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      `grep failed: rg exited with status 9. …${Array.from({ length: 8 }, (_, i) => `line ${i + 4}`).join('\n')}`,
    )
  })

  it('does not take an unreadable path named like an rg error for a pattern error', async () => {
    const { glob } = await fakeHarness(() => ({
      exitCode: 2,
      stdout: statRecords(['1', 'ok']),
      stderr: 'rg: ./the literal: Permission denied (os error 13)\n',
    }))
    expect(await glob({ pattern: '*' })).toMatchObject({ isError: false })
  })
})
