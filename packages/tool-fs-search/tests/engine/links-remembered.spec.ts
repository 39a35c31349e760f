// grep and glob in one long-lived harness, the tree changed between calls: each answer equals a fresh
// harness's (docs/design.md#the-link-scan-is-remembered).
import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness } from '@dsh/core'
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
  async function counting(remember: boolean | undefined): Promise<{ harness: Harness; walks: () => number }> {
    const local = bashLocal.createLocalBash()
    let walks = 0
    const harness = await loadHarness({
      plugins: [spillLocal, fsLocal, toolFsSearch],
      services: {
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
        'tool-fs-search': remember === undefined ? {} : { rememberLinkScans: remember },
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
})
