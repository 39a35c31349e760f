import { beforeAll, describe, expect, it, vi } from 'vitest'
import { asPlugin, loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { buildJointProbeCommand } from '../src/engine/probe/executor.js'
import { FakeBash } from './fake-bash.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from './real-harness.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

describe('the tool-fs-search plugin', () => {
  it('is a namespace plugin: name, inject, Config, apply and no default export', () => {
    expect(asPlugin(toolFsSearch)).toBe(toolFsSearch)
    expect(toolFsSearch.name).toBe('tool-fs-search')
    expect(toolFsSearch.inject).toEqual(['tools', 'systemPrompt', 'bash', 'toolAvailability'])
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
    // One shell run probes both, for the first candidate: a CLI call pays one spawn, not two.
    expect(bash.requests).toEqual([
      { command: buildJointProbeCommand('/opt/rg'), timeoutMs: 10_000, stdoutMaxBytes: 65_536 },
      expect.objectContaining({ command: 'true' }),
    ])
  })

  it('withholds both tools, registering no prompt section, with the reason and a warning naming what it tried, when no rg is runnable', async () => {
    const bash = new FakeBash(() => ({ exitCode: 1 }))
    const log = logger()
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: log,
      config: { 'tool-fs-search': { rgPath: '/opt/rg' } },
    })
    expect(harness.registry.list()).toEqual([])
    expect(harness.systemPrompt()).toEqual([])
    const reason = expect.stringMatching(
      /^ripgrep is not runnable in the bash executor \(tried \/opt\/rg, .*rg\)\. Install ripgrep \(e\.g\. apt-get install ripgrep\), or set rgPath in the tool-fs-search config to an rg binary\.$/,
    )
    expect(harness.get('toolAvailability')?.withheld()).toEqual([
      { name: 'glob', reason },
      { name: 'grep', reason },
    ])
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(/^tool-fs-search: glob and grep are not registered: ripgrep is not runnable/),
    )
  })

  it('rejects a bad config value naming the field', async () => {
    await expect(
      loadHarness({ plugins: [toolFsSearch], services: { bash: new FakeBash() }, config: { 'tool-fs-search': { grepMaxMatches: 0 } } }),
    ).rejects.toThrow(/plugin tool-fs-search: invalid config: grepMaxMatches: Too small/)
  })
})

describe('the plugin over the real executor', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('causes')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'needle\n' }))

  it('both tools work when the executor shell is sh (dash), not bash', async () => {
    const sh = await loadRealHarness({ spillRoot, bash: { shellPath: '/bin/sh' } })
    expect(sh.registry.list().map((t) => t.name)).toEqual(['glob', 'grep'])
    expect((await callTool(sh, 'glob', { pattern: '*.txt' }, tree)).content.split('\n').sort()).toEqual(['a.txt', 'sub/b.txt'])
    expect((await callTool(sh, 'grep', { pattern: 'needle', include: 'sub/' }, tree)).content).toBe(
      'Found 1 match\n\nsub/b.txt\nLine 1: needle',
    )
    expect(await callTool(sh, 'glob', { pattern: '*', path: 'gone' }, tree)).toMatchObject({
      errorCode: 'SEARCH_FAILED',
      content: expect.stringMatching(/no such file or directory/),
    })
  })
})
