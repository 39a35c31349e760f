import { beforeAll, describe, expect, it } from 'vitest'
import { HarnessError } from '@dsh/core'
import { Config } from '../../src/config.js'
import { executeGlob } from '../../src/dsh/glob/tool.js'
import { executeGrep } from '../../src/dsh/grep/tool.js'
import { FakeBash, MemorySpill, rgLines, statRecords, type Scripted } from '../fake-bash.js'
import { agent, fakeHarness, RG } from '../fake-harness.js'
import { callTool, loadRealHarness, readSpill, scratchDirs, spillLocator, withoutLocator, writeMtimeTree } from '../real-harness.js'

describe('grep spill', () => {
  const many = () => ({
    stdout: rgLines(...Array.from({ length: 5 }, (_, i) => [`f${i}.ts`, i + 1, `hit ${i}`] as [string, number, string])),
  })

  it('saves the complete formatted result and names it in the footer', async () => {
    const store = new MemorySpill()
    const { grep } = await fakeHarness(many, { grepMaxMatches: 2 }, store)
    const result = await grep({ pattern: 'hit' })
    expect(result.content).toBe(
      'Found 2 of 5 matches\n\nf0.ts\nLine 1: hit 0\n\nf1.ts\nLine 2: hit 1\n\n(Full grep result stored at: /spill/sess-1/0001-grep-results.txt. Use read with offset/limit, or grep this path to search within it.)',
    )
    expect(store.saved).toEqual([
      {
        owner: 'sess-1',
        source: { toolName: 'grep', callId: 'call-7', label: 'result' },
        filename: 'grep-results.txt',
        text: 'Found 5 matches\n\nf0.ts\nLine 1: hit 0\n\nf1.ts\nLine 2: hit 1\n\nf2.ts\nLine 3: hit 2\n\nf3.ts\nLine 4: hit 3\n\nf4.ts\nLine 5: hit 4\n',
      },
    ])
    expect(result.value).toMatchObject({ total: 5, truncated: true })
    expect(result.spilledTo).toBe('/spill/sess-1/0001-grep-results.txt')
  })

  it('keeps the inline page and says the rest could not be saved when there is no store', async () => {
    const { grep } = await fakeHarness(many, { grepMaxMatches: 2 })
    const result = await grep({ pattern: 'hit' })
    expect(result.isError).toBe(false)
    expect(result.content).toMatch(
      /\n\n\(The complete result could not be saved \(no spill store is configured\); narrow the search to see the rest\.\)$/,
    )
    expect(result).not.toHaveProperty('spilledTo')
  })

  it('keeps the inline page when saving fails or the call has no session', async () => {
    const store = new MemorySpill()
    const { grep } = await fakeHarness(many, { grepMaxMatches: 2 }, store)
    store.failWith = new Error('EROFS: read-only file system')
    expect((await grep({ pattern: 'hit' })).content).toContain(
      '(The complete result could not be saved (saving failed: EROFS: read-only file system)',
    )
    store.failWith = 'disk gone' as unknown as Error
    expect((await grep({ pattern: 'hit' })).content).toContain('(saving failed: disk gone)')
    store.failWith = undefined
    const noSession = await grep({ pattern: 'hit' }, { agent: undefined })
    expect(noSession).toMatchObject({ isError: false })
    expect(noSession.content).toContain('(the call has no session to own the file)')
    const blank = await grep({ pattern: 'hit' }, { agent: { session: { header: { id: '', cwd: '/w' } } } })
    expect(blank.content).toContain('(the call has no session to own the file)')
    expect(store.saved).toEqual([])
  })

  it('creates no spill when everything fits', async () => {
    const store = new MemorySpill()
    const { grep } = await fakeHarness(many, {}, store)
    await grep({ pattern: 'hit' })
    expect(store.saved).toEqual([])
  })
})

describe('no spill for an aborted call', () => {
  it('saves no spill when the call was aborted while rg was finishing', async () => {
    const store = new MemorySpill()
    const records = Array.from({ length: 5 }, (_, i) => [`f${i}`, 1, 'hit'] as [string, number, string])
    // rg exits just as the deadline fires: the executor reports a clean run after the abort.
    const bash = new FakeBash(
      (_command, spec) =>
        new Promise<Scripted>((resolve) => spec.signal?.addEventListener('abort', () => resolve({ stdout: rgLines(...records) }))),
    )
    const controller = new AbortController()
    const ctx = { bash, rg: RG, config: Config.parse({ grepMaxMatches: 2 }), spillStore: () => store, access: () => undefined }
    const pending = executeGrep(ctx, { pattern: 'hit' }, { signal: controller.signal, name: 'grep', callId: 'c', agent })
    setTimeout(() => controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline')), 10)
    await expect(pending).rejects.toMatchObject({
      code: 'SEARCH_ABORTED',
      message: 'grep timed out before rg finished; no result was produced. Narrow the pattern or path and search again.',
    })
    expect(store.saved).toEqual([])
  })

  it('saves no spill when the call is aborted while the result is being built', async () => {
    const store = new MemorySpill()
    const controller = new AbortController()
    const records = Array.from({ length: 5 }, (_, i) => [`f${i}`, 1, 'hit'] as [string, number, string])
    const bash = new FakeBash(() => ({ stdout: rgLines(...records) }))
    const spillStore = () => {
      controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline'))
      return store
    }
    const ctx = { bash, rg: RG, config: Config.parse({ grepMaxMatches: 2 }), spillStore, access: () => undefined }
    await expect(
      executeGrep(ctx, { pattern: 'hit' }, { signal: controller.signal, name: 'grep', callId: 'c', agent }),
    ).rejects.toMatchObject({ code: 'SEARCH_ABORTED' })
    expect(store.saved).toEqual([])
  })

  it('saves no spill when the call was aborted while rg was finishing', async () => {
    const store = new MemorySpill()
    const bash = new FakeBash(
      (_command, spec) =>
        new Promise<Scripted>((resolve) =>
          spec.signal?.addEventListener('abort', () => resolve({ stdout: statRecords(['1', 'a'], ['2', 'b'], ['3', 'c']) })),
        ),
    )
    const controller = new AbortController()
    const ctx = {
      bash,
      rg: '/opt/rg',
      lister: { helper: 'find', find: '/usr/bin/find' } as const,
      config: Config.parse({ globMaxResults: 1 }),
      spillStore: () => store,
      access: () => undefined,
    }
    const pending = executeGlob(ctx, { pattern: '*' }, { signal: controller.signal, name: 'glob', callId: 'c', agent })
    setTimeout(() => controller.abort(), 10)
    await expect(pending).rejects.toMatchObject({
      code: 'SEARCH_ABORTED',
      message: 'glob was cancelled before rg finished; no result was produced.',
    })
    expect(store.saved).toEqual([])
  })
})

describe('deterministic pages and spills (docs/design.md#deterministic-pages)', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('order')
  beforeAll(() => writeMtimeTree(tree))

  it('identical capped calls give identical pages and identical spill files', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { globMaxResults: 7, grepMaxMatches: 9 } })
    for (const [tool, args] of [
      ['glob', { pattern: '*.log' }],
      ['grep', { pattern: 'hit', include: '*.log' }],
    ] as const) {
      const runs = await Promise.all([0, 1, 2].map(() => callTool(capped, tool, args, tree)))
      const locators = runs.map((r) => spillLocator(r.content))
      expect(locators.every((l) => l !== undefined)).toBe(true)
      expect(new Set(locators).size).toBe(3)
      expect(new Set(runs.map((r) => withoutLocator(r.content))).size).toBe(1)
      expect(new Set(locators.map((l) => readSpill(l!))).size).toBe(1)
    }
  })
})
