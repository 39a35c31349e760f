import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { packagedRgPath, rgCandidates } from '../../../src/engine/probe/ripgrep.js'
import { FakeBash } from '../../fake-bash.js'
import { callTool, loadRealHarness, scratchDirs, writeMtimeTree, writeTree } from '../../real-harness.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

describe('ripgrep resolution (docs/design.md#which-ripgrep)', () => {
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
    const { packagedRgPath: fresh } = await import('../../../src/engine/probe/ripgrep.js')
    expect(await fresh()).toBeUndefined()
    vi.doUnmock('@vscode/ripgrep')
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
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: log,
      config: { 'tool-fs-search': { rgPath: '/opt/my rg' } },
    })
    expect(harness.registry.list()).toHaveLength(2)
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/^tool-fs-search: using .*; not runnable in the executor: \/opt\/my rg$/))
  })
})

describe('the ripgrep probe under a hostile review', () => {
  it('refuses a candidate whose --version does not say ripgrep (an rgPath of /bin/true)', async () => {
    const bash = new FakeBash((command) =>
      command.includes('dsh_lookup /bin/true &&') ? { stdout: '/bin/true\0true (GNU coreutils) 9.1\n' } : {},
    )
    const log = logger()
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: log,
      config: { 'tool-fs-search': { rgPath: '/bin/true' } },
    })
    expect(harness.registry.list()).toHaveLength(2)
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(
        /^tool-fs-search: using \S+; not runnable in the executor: \/bin\/true \(not ripgrep: "--version" printed "true \(GNU coreutils\) 9\.1"\)$/,
      ),
    )
  })

  it('never accepts a probe output the executor cut short', async () => {
    const bash = new FakeBash((command) => (command.includes('dsh_lookup /opt/rg') ? { stdout: '/opt/r', stdoutTruncated: true } : {}))
    const log = logger()
    await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(/not runnable in the executor: \/opt\/rg \(the probe's output was cut at 65536 bytes by the executor\)$/),
    )
    expect(bash.requests[0]).toMatchObject({ stdoutMaxBytes: 65_536 })
  })

  it('refuses a probe that printed a path but no version', async () => {
    const bash = new FakeBash((command) => (command.includes('dsh_lookup /opt/rg') ? { stdout: '/opt/rg' } : {}))
    const log = logger()
    await loadHarness({ plugins: [toolFsSearch], services: { bash }, logger: log, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(/not runnable in the executor: \/opt\/rg \(not ripgrep: "--version" printed ""\)$/),
    )
  })
})

describe('the ripgrep probe through the real executor', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('causes')
  const order = scratchDir('order')
  beforeAll(() => {
    writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'needle\n' })
    writeMtimeTree(order)
  })

  it('an rgPath that is not ripgrep (/bin/true) is refused by the probe, with a warning that says so', async () => {
    const warnings: string[] = []
    const loaded = await loadRealHarness({
      spillRoot,
      search: { rgPath: '/bin/true' },
      logger: { warn: (m) => warnings.push(m), info: () => undefined },
    })
    expect(warnings).toEqual([
      expect.stringMatching(
        /^tool-fs-search: using \S+\/rg; not runnable in the executor: \/bin\/true \(not ripgrep: "--version" printed "[^"]*"\)$/,
      ),
    ])
    expect((await callTool(loaded, 'grep', { pattern: 'needle' }, tree)).content).toBe(
      'Found 2 matches\n\na.txt\nLine 1: needle\n\nsub/b.txt\nLine 1: needle',
    )
  })

  it('runs a relative rgPath from inside any search root: the probe made it absolute', async () => {
    const bin = scratchDir('relative-rg')
    symlinkSync((await import('@vscode/ripgrep')).rgPath, join(bin, 'myrg'))
    const relative = await loadRealHarness({ spillRoot, bash: { cwd: bin }, search: { rgPath: './myrg' } })
    expect(relative.registry.list().map((t) => t.name)).toEqual(['glob', 'grep'])
    expect((await callTool(relative, 'glob', { pattern: 'c-*.txt' }, order)).content).toBe('c-old.txt')
    expect((await callTool(relative, 'grep', { pattern: 'needle', path: '.', include: 'c-*.txt' }, order)).content).toBe(
      'Found 1 match\n\nc-old.txt\nLine 1: needle',
    )
  })
})
