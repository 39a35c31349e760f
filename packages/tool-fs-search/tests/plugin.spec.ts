import { describe, expect, it, vi } from 'vitest'
import { asPlugin, loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { buildProbeCommand, packagedRgPath, rgCandidates } from '../src/probe.js'
import { FakeBash } from './fake-bash.js'

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
      ['glob', true, true, 30_000],
      ['grep', true, true, 30_000],
    ])
    expect(harness.systemPrompt().map((s) => s.tool)).toEqual(['glob', 'grep'])
    expect(bash.requests[0]).toEqual({ command: buildProbeCommand('/opt/rg'), timeoutMs: 10_000 })
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
