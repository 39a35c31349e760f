// The search tools' warm-up in a real harness: the index first, then the link scan a first search
// would walk, so that search walks nothing (docs/design.md#a-warm-process-loads-its-index-first).
import { realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AccessError, type FileSystem, type SearchIndex } from '@dsh/core'
import { createLocalFileSystem } from '@dsh/fs-local'
import { callTool, scratchDirs, withoutLocator, writeTree } from '../real-harness.js'
import { countingHarness, type CountingOptions } from './counting-harness.js'

const scratchDir = scratchDirs()
const counting = (remember?: boolean, extra?: CountingOptions['extra'], config?: { index: 'off' }) =>
  countingHarness(scratchDir('count-spill'), { remember, ...(extra === undefined ? {} : { extra }), ...(config ?? {}) })

/** An index that records where it was prepared and what had been walked by then; `mark` is its watcher's quiet mark. */
function recording(walks: () => number, { fail = false, mark }: { fail?: boolean; mark?: () => string } = {}) {
  const prepared: Array<{ dir: string; walks: number }> = []
  const searchIndex: SearchIndex = {
    plan: () => Promise.resolve({ kind: 'full-scan', reason: 'no-index', detail: 'none here' }),
    prepare: ({ dir }) => {
      prepared.push({ dir, walks: walks() })
      return fail ? Promise.reject(new Error('disk on fire')) : Promise.resolve()
    },
    ...(mark === undefined ? {} : { unchangedMark: () => Promise.resolve(mark()) }),
  }
  return { searchIndex, prepared }
}

/**
 * The local file system, counting the paths below `tree` it stamps without following (directories
 * checked): not the ignore inputs above the tree, which a search that names candidates stamps too.
 */
function stampCounting(withStampMany = true, tree = ''): { fs: FileSystem; statted: () => number } {
  const local = createLocalFileSystem()
  let statted = 0
  const fs: FileSystem = {
    stat: (path) => local.stat(path),
    readLines: (request) => local.readLines(request),
    realpath: (path) => local.realpath(path),
    ...(withStampMany
      ? {
          stampMany: (paths: readonly string[], options: { follow: boolean }) => {
            // The tree's own ignore inputs, which a search that may name stamps too, are no link scan's.
            const ownIgnores = ['.gitignore', '.ignore', '.rgignore', '.git', '.git/info/exclude'].map((name) => `${tree}/${name}`)
            const scanned = (path: string) => (path === tree || path.startsWith(`${tree}/`)) && !ownIgnores.includes(path)
            if (!options.follow) statted += paths.filter(scanned).length
            return local.stampMany!(paths, options)
          },
        }
      : {}),
  }
  return { fs, statted: () => statted }
}

const linkedTree = (label: string) => {
  const work = realpathSync(scratchDir(label))
  writeTree(work, { 'a/b.ts': 'needle\n' })
  symlinkSync('a', join(work, 'l'))
  return work
}
const prepare = (harness: Awaited<ReturnType<typeof counting>>['harness'], dir: string, signal = new AbortController().signal) =>
  harness.get('searchWarmUp')!.prepare({ dir, signal })

describe('searchWarmUp', () => {
  it("prepares the index, then walks the link scan, so the workspace's first search walks nothing", async () => {
    const work = linkedTree('warm')
    let walks = () => 0
    const index = recording(() => walks())
    const counted = await counting(undefined, { searchIndex: index.searchIndex })
    walks = counted.walks
    await prepare(counted.harness, work)
    expect(index.prepared).toEqual([{ dir: work, walks: 0 }])
    expect(counted.walks()).toBe(1)
    const warm = withoutLocator(String((await callTool(counted.harness, 'grep', { pattern: 'needle' }, work)).content))
    expect(counted.walks()).toBe(1)
    const cold = await counting()
    expect(warm).toBe(withoutLocator(String((await callTool(cold.harness, 'grep', { pattern: 'needle' }, work)).content)))
    expect(warm).toContain('l/b.ts')
  })

  it("lets the first search stat no directory while the index's watcher vouches for the tree, and every one once it does not", async () => {
    const work = linkedTree('warm-quiet')
    let mark = 'm1'
    const { fs, statted } = stampCounting(true, work)
    const counted = await counting(undefined, { searchIndex: recording(() => 0, { mark: () => mark }).searchIndex, fs })
    await prepare(counted.harness, work)
    expect(counted.walks()).toBe(1)
    const warmUp = statted()
    expect(await callTool(counted.harness, 'grep', { pattern: 'needle' }, work)).toMatchObject({
      content: expect.stringContaining('l/b.ts'),
    })
    expect(statted()).toBe(warmUp)
    mark = 'm2'
    await callTool(counted.harness, 'grep', { pattern: 'needle' }, work)
    // The root and its directory a: each statted once.
    expect(statted() - warmUp).toBe(2)
    expect(counted.walks()).toBe(1)
  })

  it('walks nothing where no memory would keep the scan: link scans not remembered, or a file system that cannot stamp many paths', async () => {
    const work = linkedTree('warm-off')
    const off = await counting(false)
    await prepare(off.harness, work)
    expect(off.walks()).toBe(0)
    const unstamped = await counting(undefined, { fs: stampCounting(false).fs })
    await prepare(unstamped.harness, work)
    expect(unstamped.walks()).toBe(0)
    // The search itself still walks, and answers.
    expect(await callTool(unstamped.harness, 'grep', { pattern: 'needle' }, work)).toMatchObject({
      content: expect.stringContaining('l/b.ts'),
    })
    expect(unstamped.walks()).toBe(1)
  })

  it('prepares no index the config turns off, and nothing past an aborted signal', async () => {
    const work = linkedTree('warm-index-off')
    const unused = recording(() => 0)
    const off = await counting(undefined, { searchIndex: unused.searchIndex }, { index: 'off' })
    await prepare(off.harness, work)
    expect(unused.prepared).toEqual([])
    expect(off.walks()).toBe(1)
    const index = recording(() => 0)
    const stopped = await counting(undefined, { searchIndex: index.searchIndex })
    await prepare(stopped.harness, work, AbortSignal.abort())
    expect(index.prepared).toEqual([{ dir: work, walks: 0 }])
    expect(stopped.walks()).toBe(0)
  })

  it('leaves a refused or missing workspace to its first search, rejects as the index prepare does, and yields to a host warm-up', async () => {
    const work = linkedTree('warm-refused')
    const refused = await counting(undefined, {
      access: { check: () => Promise.reject(new AccessError('ACCESS_OUTSIDE_ROOTS', 'outside the roots')) },
    })
    await expect(prepare(refused.harness, work)).resolves.toBeUndefined()
    expect(refused.walks()).toBe(0)
    // A host policy that fails to answer has refused nothing: its failure is the warm-up's, and nothing is walked.
    const offline = await counting(undefined, { access: { check: () => Promise.reject(new Error('policy store offline')) } })
    await expect(prepare(offline.harness, work)).rejects.toThrow('policy store offline')
    expect(offline.walks()).toBe(0)
    const missing = await counting()
    await expect(prepare(missing.harness, join(work, 'gone'))).resolves.toBeUndefined()
    expect(missing.walks()).toBe(0)
    const failing = await counting(undefined, { searchIndex: recording(() => 0, { fail: true }).searchIndex })
    await expect(prepare(failing.harness, work)).rejects.toThrow('disk on fire')
    expect(failing.walks()).toBe(0)
    const mine = { prepare: () => Promise.resolve() }
    expect((await counting(undefined, { searchWarmUp: mine })).harness.get('searchWarmUp')).toBe(mine)
  })

  it('swallows what the workspace does to the scan, but not a fault in the code', async () => {
    const work = linkedTree('warm-fault')
    const { fs } = stampCounting()
    const broken = await counting(undefined, {
      fs: {
        ...fs,
        stat: () => {
          throw new TypeError('a bug')
        },
      },
    })
    await expect(prepare(broken.harness, work)).rejects.toThrow('a bug')
    // Stopped once the walk is about to start: the search's own error for it is swallowed.
    const stop = new AbortController()
    const stopped = await counting(undefined, {
      access: {
        check: () => {
          stop.abort()
          return Promise.resolve({ realPath: work, excludeGlobs: [] })
        },
      },
    })
    await expect(prepare(stopped.harness, work, stop.signal)).resolves.toBeUndefined()
    // Nothing was kept: the first search walks.
    const walked = stopped.walks()
    await callTool(stopped.harness, 'grep', { pattern: 'needle' }, work)
    expect(stopped.walks()).toBe(walked + 1)
  })
})
