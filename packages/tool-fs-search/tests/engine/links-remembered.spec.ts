// grep and glob in one long-lived harness, the tree changed between calls: each answer equals a fresh
// harness's (docs/design.md#the-link-scan-is-remembered).
import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type SearchIndex, type Services } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { callTool, loadRealHarness, scratchDirs, withoutLocator, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()

describe('grep and glob with a remembered link scan', () => {
  let kept: Harness
  const fresh = () => loadRealHarness({ spillRoot: scratchDir('remembered-spill-fresh') })
  beforeAll(async () => {
    kept = await loadRealHarness({ spillRoot: scratchDir('remembered-spill') })
  })

  it('answers after each change as a harness that never searched the tree', async () => {
    const work = realpathSync(scratchDir('remembered'))
    writeTree(work, { 'store/p1/a.ts': 'needle one\n', 'store/p2/b.ts': 'needle two\n', 'src/main.ts': 'needle main\n' })
    mkdirSync(join(work, 'node_modules'))
    symlinkSync('../store/p1', join(work, 'node_modules/p1'))
    const changes = [
      () => symlinkSync('../store/p2', join(work, 'node_modules/p2')),
      () => rmSync(join(work, 'node_modules/p1')),
      () => symlinkSync('/', join(work, 'src/out')),
      () => {
        rmSync(join(work, 'node_modules/p2'))
        symlinkSync('../src', join(work, 'node_modules/p2'))
      },
      () => rmSync(join(work, 'store/p1'), { recursive: true }),
      () => symlinkSync('../store/p1', join(work, 'node_modules/p1')),
    ]
    // One after the other: two calls at once would each find the memory taken, and walk.
    const answers = async (harness: Harness) => [
      withoutLocator(String((await callTool(harness, 'grep', { pattern: 'needle' }, work)).content)),
      withoutLocator(String((await callTool(harness, 'glob', { pattern: 'node_modules/**' }, work)).content)),
    ]
    await answers(kept)
    for (const [i, change] of changes.entries()) {
      change()
      expect(await answers(kept), `after change ${i}`).toEqual(await answers(await fresh()))
    }
  })
})

describe('rememberLinkScans', () => {
  /** A harness over bash-local that counts the link scans that walk the whole tree. */
  async function counting(
    remember: boolean | undefined,
    shared?: { memory: toolFsSearch.LinkScanMemory; settleMs?: number; watch?: boolean },
    extra: Partial<Pick<Services, 'searchIndex' | 'access' | 'searchWarmUp'>> = {},
  ): Promise<{ harness: Harness; walks: () => number }> {
    const local = bashLocal.createLocalBash()
    let walks = 0
    const settle = {
      ...(shared?.settleMs === undefined ? {} : { linkScanSettleMs: shared.settleMs }),
      ...(shared?.watch === undefined ? {} : { watchLinkScans: shared.watch }),
    }
    const harness = await loadHarness({
      plugins: [spillLocal, fsLocal, toolFsSearch],
      services: {
        ...extra,
        ...(shared === undefined ? {} : { linkScanMemory: shared.memory }),
        bash: {
          resolve: (request) => local.resolve(request),
          run: (spec) => {
            if (spec.command.includes('-type l') && /^set -- \.$/m.test(spec.command) && !spec.command.includes('-maxdepth 1')) walks++
            return local.run(spec)
          },
        },
      },
      config: {
        'spill-local': { root: scratchDir('count-spill') },
        'tool-fs-search': { ...(remember === undefined ? {} : { rememberLinkScans: remember }), ...settle },
      },
    })
    return { harness, walks: () => walks }
  }

  it('walks once by default, and before every call when false', async () => {
    const work = realpathSync(scratchDir('count'))
    writeTree(work, { 'a/b.ts': 'needle\n' })
    symlinkSync('a', join(work, 'l'))
    for (const [remember, walks] of [
      [undefined, 1],
      [false, 3],
    ] as const) {
      const { harness, walks: counted } = await counting(remember)
      for (let i = 0; i < 3; i++) expect((await callTool(harness, 'grep', { pattern: 'needle' }, work)).content).toContain('l/b.ts')
      expect(counted()).toBe(walks)
    }
  })

  it("shares a host's memory across harnesses with the same settle time and watching, and keeps its own otherwise", async () => {
    const work = realpathSync(scratchDir('shared'))
    writeTree(work, { 'a/b.ts': 'needle\n' })
    symlinkSync('a', join(work, 'l'))
    const memory = new toolFsSearch.LinkScanMemory(toolFsSearch.Config.parse({}).linkScanSettleMs)
    let walks = 0
    for (let i = 0; i < 3; i++) {
      // A harness a call, as the warm server builds them.
      const { harness, walks: counted } = await counting(undefined, { memory })
      expect((await callTool(harness, 'grep', { pattern: 'needle' }, work)).content).toContain('l/b.ts')
      walks += counted()
    }
    expect(walks).toBe(1)
    expect(memory.size.roots).toBe(1)
    const other = await counting(undefined, { memory, settleMs: 30_000 })
    await callTool(other.harness, 'grep', { pattern: 'needle' }, work)
    expect(other.walks()).toBe(1)
    const unwatched = await counting(undefined, { memory, watch: false })
    await callTool(unwatched.harness, 'grep', { pattern: 'needle' }, work)
    expect(unwatched.walks()).toBe(1)
    const off = await counting(false, { memory })
    await callTool(off.harness, 'grep', { pattern: 'needle' }, work)
    expect(off.walks()).toBe(1)
  })

  describe('searchWarmUp (docs/design.md#a-warm-process-loads-its-index-first)', () => {
    /** An index that records where it was prepared, and what had been walked by then. */
    const recording = (walks: () => number, fail = false) => {
      const prepared: Array<{ dir: string; walks: number }> = []
      const searchIndex: SearchIndex = {
        plan: () => Promise.resolve({ kind: 'full-scan', reason: 'no-index', detail: 'none here' }),
        prepare: ({ dir }) => {
          prepared.push({ dir, walks: walks() })
          return fail ? Promise.reject(new Error('disk on fire')) : Promise.resolve()
        },
      }
      return { searchIndex, prepared }
    }
    const linkedTree = (label: string) => {
      const work = realpathSync(scratchDir(label))
      writeTree(work, { 'a/b.ts': 'needle\n' })
      symlinkSync('a', join(work, 'l'))
      return work
    }

    it("prepares the index, then walks the link scan, so the workspace's first search walks nothing", async () => {
      const work = linkedTree('warm')
      let walks = () => 0
      const index = recording(() => walks())
      const counted = await counting(undefined, undefined, { searchIndex: index.searchIndex })
      walks = counted.walks
      await counted.harness.get('searchWarmUp')!.prepare({ dir: work, signal: new AbortController().signal })
      expect(index.prepared).toEqual([{ dir: work, walks: 0 }])
      expect(counted.walks()).toBe(1)
      const warm = withoutLocator(String((await callTool(counted.harness, 'grep', { pattern: 'needle' }, work)).content))
      expect(counted.walks()).toBe(1)
      const cold = await counting(undefined)
      expect(warm).toBe(withoutLocator(String((await callTool(cold.harness, 'grep', { pattern: 'needle' }, work)).content)))
      expect(warm).toContain('l/b.ts')
    })

    it('prepares the index alone where link scans are not remembered, or once the signal is aborted', async () => {
      const work = linkedTree('warm-off')
      const off = await counting(false)
      await off.harness.get('searchWarmUp')!.prepare({ dir: work, signal: new AbortController().signal })
      expect(off.walks()).toBe(0)
      const index = recording(() => 0)
      const stopped = await counting(undefined, undefined, { searchIndex: index.searchIndex })
      const signal = AbortSignal.abort()
      await stopped.harness.get('searchWarmUp')!.prepare({ dir: work, signal })
      expect(index.prepared).toEqual([{ dir: work, walks: 0 }])
      expect(stopped.walks()).toBe(0)
    })

    it("leaves a refused workspace to its first search, rejects as the index's own prepare does, and yields to a host's warm-up", async () => {
      const work = linkedTree('warm-refused')
      const refused = await counting(undefined, undefined, {
        access: { check: () => Promise.reject(new Error('outside the roots')) },
      })
      await expect(
        refused.harness.get('searchWarmUp')!.prepare({ dir: work, signal: new AbortController().signal }),
      ).resolves.toBeUndefined()
      expect(refused.walks()).toBe(0)
      const failing = await counting(undefined, undefined, { searchIndex: recording(() => 0, true).searchIndex })
      await expect(failing.harness.get('searchWarmUp')!.prepare({ dir: work, signal: new AbortController().signal })).rejects.toThrow(
        'disk on fire',
      )
      expect(failing.walks()).toBe(0)
      const mine = { prepare: () => Promise.resolve() }
      expect((await counting(undefined, undefined, { searchWarmUp: mine })).harness.get('searchWarmUp')).toBe(mine)
    })
  })
})
