import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isMtimeProbe, isProbe } from '../fake-bash.js'
import { callTool, loadRealHarness, scratchDirs, writeMtimeTree } from '../real-harness.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

describe("glob's mtime helper probe", () => {
  it("resolves glob's mtime helpers once, and falls back to xargs and stat by absolute path", async () => {
    const stderr = "/bin/stat: cannot statx 'shut/a.ts': Permission denied\n/bin/stat: cannot statx 'gone.ts': No such file or directory\n"
    const bash = new FakeBash((command) =>
      isMtimeProbe(command)
        ? { stdout: 'stat\0/bin/xargs\0/bin/stat' }
        : isProbe(command)
          ? {}
          : { exitCode: 7, stdout: '1\tok.ts\0', stderr },
    )
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    const result = await harness.registry.execute('glob', { pattern: '*' })
    expect(bash.requests.filter((r) => isMtimeProbe(r.command))).toHaveLength(1)
    expect(bash.searches().at(-1)).toContain('| { /bin/xargs -0 -r /bin/stat \'--printf=%.9Y\\t%n\\0\' --; echo "h$?" >&3; }')
    expect(result.content).toBe(
      "ok.ts\n\n(Listing incomplete: 2 files rg listed could not be examined for their modification time, so they are not shown: cannot statx 'gone.ts': No such file or directory; cannot statx 'shut/a.ts': Permission denied.)",
    )
  })

  it.each([
    ['no helper is runnable', { exitCode: 1 }],
    ['the helper probe prints nonsense', { stdout: 'find\0' }],
    ['the helper probe prints an unknown kind', { stdout: 'ls\0/bin/ls' }],
    ['the helper probe output was cut', { stdout: 'find\0/usr/bin/fi', stdoutTruncated: true }],
  ])('registers grep but not glob, with a warning, when %s', async (_case, scripted) => {
    const bash = new FakeBash((command) => (isMtimeProbe(command) ? scripted : {}))
    const log = logger()
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: log,
      config: { 'tool-fs-search': { rgPath: '/opt/rg' } },
    })
    expect(harness.registry.list().map((t) => t.name)).toEqual(['grep'])
    expect(harness.systemPrompt().map((s) => s.tool)).toEqual(['grep'])
    expect(log.warn).toHaveBeenCalledWith(
      'tool-fs-search: glob is not registered: it needs GNU find (>= 4.9), or xargs and GNU stat, in the bash executor to order files by modification time',
    )
  })

  it('fails the load loudly when the helper probe cannot run', async () => {
    const bash = new FakeBash((command) => (isMtimeProbe(command) ? { stop: 'timeout', exitCode: null } : {}))
    await expect(
      loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } }),
    ).rejects.toThrow(/the mtime helper probe did not finish with an exit code: the bash executor is broken/)
  })
})

describe('the mtime helper through the real executor', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('order')
  beforeAll(() => writeMtimeTree(tree))

  it('glob orders by mtime the same way through the xargs/stat fallback, where find is older than 4.9', async () => {
    const bin = scratchDir('old-find')
    writeFileSync(join(bin, 'find'), '#!/bin/sh\necho "find: unknown predicate -files0-from" >&2\nexit 1\n', { mode: 0o755 })
    const fallback = await loadRealHarness({ spillRoot, bash: { envSet: { PATH: `${bin}:/usr/bin:/bin` } } })
    const result = await callTool(fallback, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content).toBe(['b-new.txt', 'tie-a.txt', 'tie-b.txt', 'a-mid.txt', 'c-old.txt'].join('\n'))
  })
})
