import { describe, expect, it, vi } from 'vitest'
import { asPlugin, loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { buildProbeCommand, packagedRgPath, rgCandidates } from '../src/probe.js'
import { FakeBash, isMtimeProbe, isProbe } from './fake-bash.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

describe('the tool-fs-search plugin', () => {
  it('is a namespace plugin: name, inject, Config, apply and no default export', () => {
    expect(asPlugin(toolFsSearch)).toBe(toolFsSearch)
    expect(toolFsSearch.name).toBe('tool-fs-search')
    expect(toolFsSearch.inject).toEqual(['tools', 'systemPrompt', 'bash'])
    expect('default' in toolFsSearch).toBe(false)
  })

  it('registers glob and grep and their prompt sections when the probe exits 0', async () => {
    const bash = new FakeBash()
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(harness.registry.list().map((t) => [t.name, t.isReadOnly, t.isConcurrencySafe, t.timeoutMs])).toEqual([
      ['glob', true, true, 35_000],
      ['grep', true, true, 35_000],
    ])
    expect(harness.systemPrompt().map((s) => s.tool)).toEqual(['glob', 'grep'])
    expect(bash.requests[0]).toEqual({ command: buildProbeCommand('/opt/rg'), timeoutMs: 10_000, stdoutMaxBytes: 65_536 })
  })

  it('registers neither tool nor prompt section, with a warning naming what it tried, when no rg is runnable', async () => {
    const bash = new FakeBash(() => ({ exitCode: 1 }))
    const log = logger()
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(harness.registry.list()).toEqual([])
    expect(harness.systemPrompt()).toEqual([])
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/ripgrep is not runnable in the bash executor \(tried \/opt\/rg, .*rg\); glob and grep are not registered/))
  })

  it('does not take a builtin or a function that `command -v` finds for rg', async () => {
    const bash = new FakeBash(() => ({ stdout: 'rg' }))
    const log = logger()
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log })
    expect(harness.registry.list()).toEqual([])
  })

  it('falls back along the resolution order and says which rg it chose', async () => {
    const bash = new FakeBash((command) => ({ exitCode: command.includes("'/opt/my rg'") ? 1 : 0 }))
    const log = logger()
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/my rg' } } })
    expect(harness.registry.list()).toHaveLength(2)
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/^tool-fs-search: using .*; not runnable in the executor: \/opt\/my rg$/))
  })

  it.each([
    ['cannot start', (bash: FakeBash) => (bash.runError = new Error('spawn /bin/bash ENOENT')), /the ripgrep probe could not run in the bash executor: spawn \/bin\/bash ENOENT/],
    ['cannot resolve', (bash: FakeBash) => (bash.resolveError = new Error('workdir missing')), /could not run in the bash executor: workdir missing/],
  ])('fails the load loudly when the probe %s', async (_case, breakIt, message) => {
    const bash = new FakeBash()
    breakIt(bash)
    const load = loadHarness({ plugins: [toolFsSearch], services: { bash } })
    await expect(load).rejects.toMatchObject({ code: 'PLUGIN_APPLY_FAILED' })
    await expect(load).rejects.toThrow(message)
  })

  it.each([
    ['times out', { timedOut: true, exitCode: null }],
    ['is aborted', { aborted: true, exitCode: 0 }],
    ['has no exit code', { exitCode: null, signal: 'SIGKILL' }],
  ])('fails the load loudly when the probe %s', async (_case, scripted) => {
    const bash = new FakeBash(() => scripted)
    await expect(loadHarness({ plugins: [toolFsSearch], services: { bash } })).rejects.toThrow(
      /plugin tool-fs-search failed to load \[SEARCH_FAILED\]: the ripgrep probe for .* did not finish with an exit code/,
    )
  })

  it('rejects a bad config value naming the field', async () => {
    await expect(
      loadHarness({ plugins: [toolFsSearch], services: { bash: new FakeBash() }, config: { 'tool-fs-search': { grepMaxMatches: 0 } } }),
    ).rejects.toThrow(/plugin tool-fs-search: invalid config: grepMaxMatches: Too small/)
  })
})

describe('ripgrep resolution', () => {
  it('orders configured, packaged, then PATH, without repeats', () => {
    expect(rgCandidates('/a/rg', '/pkg/rg')).toEqual(['/a/rg', '/pkg/rg', 'rg'])
    expect(rgCandidates(undefined, '/pkg/rg')).toEqual(['/pkg/rg', 'rg'])
    expect(rgCandidates('rg', undefined)).toEqual(['rg'])
  })

  it('finds the packaged @vscode/ripgrep binary', async () => {
    expect(await packagedRgPath()).toMatch(/@vscode\/ripgrep-[a-z0-9]+-[a-z0-9]+\/bin\/rg$/)
  })

  it('reports no packaged binary when its platform package is missing', async () => {
    vi.resetModules()
    vi.doMock('@vscode/ripgrep', () => {
      throw new Error('Could not find @vscode/ripgrep-linux-x64')
    })
    const { packagedRgPath: fresh } = await import('../src/probe.js')
    expect(await fresh()).toBeUndefined()
    vi.doUnmock('@vscode/ripgrep')
  })
})

describe('the load-time probes under a hostile review', () => {
  it('refuses a candidate whose --version does not say ripgrep (an rgPath of /bin/true)', async () => {
    const bash = new FakeBash((command) => (command.includes('dsh_lookup /bin/true)') ? { stdout: '/bin/true\0true (GNU coreutils) 9.1\n' } : {}))
    const log = logger()
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/bin/true' } } })
    expect(harness.registry.list()).toHaveLength(2)
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/^tool-fs-search: using \S+; not runnable in the executor: \/bin\/true \(not ripgrep: "--version" printed "true \(GNU coreutils\) 9\.1"\)$/))
  })

  it('never accepts a probe output the executor cut short', async () => {
    const bash = new FakeBash((command) => (command.includes('dsh_lookup /opt/rg') ? { stdout: '/opt/r', stdoutTruncated: true } : {}))
    const log = logger()
    await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/not runnable in the executor: \/opt\/rg \(the probe's output was cut at 65536 bytes by the executor\)$/))
    expect(bash.requests[0]).toMatchObject({ stdoutMaxBytes: 65_536 })
  })

  it('refuses a probe that printed a path but no version', async () => {
    const bash = new FakeBash((command) => (command.includes('dsh_lookup /opt/rg') ? { stdout: '/opt/rg' } : {}))
    const log = logger()
    await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/not runnable in the executor: \/opt\/rg \(not ripgrep: "--version" printed ""\)$/))
  })

  it('resolves glob\'s mtime helpers once, and falls back to xargs and stat by absolute path', async () => {
    const stderr = "/bin/stat: cannot statx 'shut/a.ts': Permission denied\n/bin/stat: cannot statx 'gone.ts': No such file or directory\n"
    const bash = new FakeBash((command) => (isMtimeProbe(command) ? { stdout: 'stat\0/bin/xargs\0/bin/stat' } : isProbe(command) ? {} : { exitCode: 7, stdout: '1\tok.ts\0', stderr }))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    const result = await harness.registry.execute('glob', { pattern: '*' })
    expect(bash.requests.filter((r) => isMtimeProbe(r.command))).toHaveLength(1)
    expect(bash.searches().at(-1)).toContain("| { /bin/xargs -0 -r /bin/stat '--printf=%.9Y\\t%n\\0' --; echo \"h$?\" >&3; }")
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
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(harness.registry.list().map((t) => t.name)).toEqual(['grep'])
    expect(harness.systemPrompt().map((s) => s.tool)).toEqual(['grep'])
    expect(log.warn).toHaveBeenCalledWith(
      'tool-fs-search: glob is not registered: it needs GNU find (>= 4.9), or xargs and GNU stat, in the bash executor to order files by modification time',
    )
  })

  it('fails the load loudly when the helper probe cannot run', async () => {
    const bash = new FakeBash((command) => (isMtimeProbe(command) ? { timedOut: true, exitCode: null } : {}))
    await expect(loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })).rejects.toThrow(
      /the mtime helper probe did not finish with an exit code: the bash executor is broken/,
    )
  })

  it('warns when rawOutputMaxBytes is above what the executor keeps, and stays quiet when it fits', async () => {
    const bash = new FakeBash()
    bash.maxStdoutMaxBytes = 1_000_000
    const log = logger()
    await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg', rawOutputMaxBytes: 2_000_000 } } })
    expect(log.warn).toHaveBeenCalledWith(
      'tool-fs-search: rawOutputMaxBytes is 2000000, but the bash executor keeps at most 1000000 bytes of output; searches stop at 1000000 bytes',
    )
    expect(bash.requests).toContainEqual({ command: 'true', stdoutMaxBytes: 2_000_000 })
    const quiet = logger()
    await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: quiet, config: { 'tool-fs-search': { rgPath: '/opt/rg', rawOutputMaxBytes: 1_000_000 } } })
    expect(quiet.warn).not.toHaveBeenCalled()
  })

  it('gives the executor the configured timeout and the registry a later backstop, so the executor reaps rg first', async () => {
    const bash = new FakeBash()
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg', timeoutMs: 1000 } } })
    expect(harness.registry.list().map((t) => t.timeoutMs)).toEqual([6000, 6000])
    await harness.registry.execute('grep', { pattern: 'x' })
    expect(bash.requests.at(-1)).toMatchObject({ timeoutMs: 1000 })
  })
})
