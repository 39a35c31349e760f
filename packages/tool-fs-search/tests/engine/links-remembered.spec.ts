// grep and glob in one long-lived harness, the tree changed between calls: each answer equals a fresh
// harness's (docs/design.md#the-link-scan-is-remembered).
import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { callTool, loadRealHarness, scratchDirs, withoutLocator, writeTree } from '../real-harness.js'
import { countingHarness, type CountingOptions } from './counting-harness.js'

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
    // One after the other, as a model's calls come.
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
  const counting = (remember: boolean | undefined, shared?: CountingOptions['shared']) =>
    countingHarness(scratchDir('count-spill'), { remember, ...(shared === undefined ? {} : { shared }) })

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
})
