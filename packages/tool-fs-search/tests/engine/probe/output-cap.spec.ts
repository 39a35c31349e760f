import { describe, expect, it, vi } from 'vitest'
import { loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash } from '../../fake-bash.js'
import { loadRealHarness, scratchDirs } from '../../real-harness.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

describe('the output cap the executor applies', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')

  it('warns when rawOutputMaxBytes is above what the executor keeps, and stays quiet when it fits', async () => {
    const bash = new FakeBash()
    bash.maxStdoutMaxBytes = 1_000_000
    const log = logger()
    await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: log,
      config: { 'tool-fs-search': { rgPath: '/opt/rg', rawOutputMaxBytes: 2_000_000 } },
    })
    expect(log.warn).toHaveBeenCalledWith(
      'tool-fs-search: rawOutputMaxBytes is 2000000, but the bash executor keeps at most 1000000 bytes of output; searches stop at 1000000 bytes',
    )
    expect(bash.requests).toContainEqual({ command: 'true', stdoutMaxBytes: 2_000_000, stdoutSink: expect.any(Function) })
    const quiet = logger()
    await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: quiet,
      config: { 'tool-fs-search': { rgPath: '/opt/rg', rawOutputMaxBytes: 1_000_000 } },
    })
    expect(quiet.warn).not.toHaveBeenCalled()
  })

  it("stays quiet over bash-local, whose ceiling bounds what it keeps, not what a search's sink takes", async () => {
    const warnings: string[] = []
    await loadRealHarness({
      spillRoot,
      search: { rawOutputMaxBytes: 200_000_000 },
      bash: { defaultStdoutMaxBytes: 1_000, maxStdoutMaxBytes: 1_000 },
      logger: { warn: (m) => warnings.push(m), info: () => undefined },
    })
    expect(warnings).toEqual([])
  })
})
