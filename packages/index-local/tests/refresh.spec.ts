// A warm process updates its index from its watcher, without a walk, and hands the watcher on to the
// update: searches after it read the update and lose no change made before, during or after it.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { BashExecutor, BashRequest, BashSpec, IndexAnswer } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { buildIndex, closeIndexWatchers, createLocalSearchIndex, type LocalIndexAnswer } from '../src/index.js'
import { openIndexFile } from '../src/format.js'
import { INDEX_FILE, treeDir, UPDATE_FILE } from '../src/location.js'
import { TreeWatcher } from '../src/watcher.js'
import { rgPath } from '@vscode/ripgrep'
import { waitUntil } from '../../../test-support/processes.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'

const base = scratchDir('index-refresh')
const signal = new AbortController().signal
let count = 0

afterEach(async () => {
  await closeIndexWatchers()
  vi.restoreAllMocks()
})

/** A local executor that counts the commands it runs: a walk is one (or one a part). */
function countingBash(): BashExecutor & { runs: number } {
  const bash = createLocalBash({})
  const counted: BashExecutor & { runs: number } = {
    runs: 0,
    resolve: (request: BashRequest) => bash.resolve(request),
    run: (spec: BashSpec) => {
      counted.runs++
      return bash.run(spec)
    },
  }
  return counted
}

async function setup(files: Record<string, string>, options: Record<string, unknown> = {}) {
  const root = join(base, `t${count++}`)
  writeTree(root, files)
  const bash = countingBash()
  // refreshAfter 0: these tests refresh when they ask, but for the one about the threshold.
  const index = createLocalSearchIndex({ dir: join(base, 'index'), watch: true, broadFraction: 1, refreshAfter: 0, ...options, bash })
  await buildIndex(index.settings, root)
  const plan = (pattern: string) => index.plan({ dir: root, pattern, caseInsensitive: false, multiline: false, signal })
  return { root, index, plan, bash, home: treeDir(index.settings.dir, root) }
}

function reason(answer: IndexAnswer): string {
  return answer.kind === 'full-scan' ? `${answer.reason}: ${answer.detail}` : 'candidates'
}

/** The files rg finds through the plan's ignore file, which must be the files a full scan finds; and what the plan read as changed. */
async function search(root: string, answer: LocalIndexAnswer, pattern: string): Promise<{ files: string[]; changed: number }> {
  if (answer.kind !== 'candidates') throw new Error(reason(answer))
  const rg = (extra: string[]) => {
    try {
      return execFileSync(rgPath, ['--no-config', '--hidden', '-l', ...extra, '--', pattern, '.'], { cwd: root }).toString()
    } catch {
      return ''
    }
  }
  const files = (text: string) => text.split('\n').filter(Boolean).sort()
  const indexed = files(rg([`--ignore-file=${answer.ignoreFile}`]))
  await answer.release()
  expect(indexed).toEqual(files(rg([])))
  return { files: indexed, changed: answer.changed }
}

const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'src/c.txt': 'gamma\n', 'src/deep/d.txt': 'delta\n' }

describe('a refresh', () => {
  it('keys what the watcher saw, hands the watcher on without a walk, and searches read the update', async () => {
    const { root, index, plan, bash, home } = await setup(FILES)
    // The first search starts the watcher and walks once.
    await search(root, await plan('omega'), 'omega')
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    writeTree(root, { 'fresh/x/y.txt': 'omega\n' })
    rmSync(join(root, 'src/c.txt'))
    expect(await search(root, await plan('omega'), 'omega')).toEqual({ files: ['./b.txt', './fresh/x/y.txt'], changed: 3 })
    const runs = bash.runs
    const report = await index.refresh(root)
    // What `dsh index` reports of an update, but for how the changes were learned.
    expect(report).toEqual({
      kind: 'updated',
      root,
      // b.txt and fresh; src/c.txt is gone, so nothing of it is keyed.
      changed: 2,
      files: 2,
      alwaysRead: 0,
      contentBytes: 12,
      indexBytes: expect.any(Number),
      trigrams: expect.any(Number),
      indexPath: join(home, UPDATE_FILE),
      basePath: join(home, INDEX_FILE),
      baseBytes: statSync(join(home, INDEX_FILE)).size,
      handedOn: true,
      elapsedMs: expect.any(Number),
    })
    const update = openIndexFile(join(home, UPDATE_FILE))
    expect([...Array(update.files.length).keys()].map((id) => update.files.at(id)).sort()).toEqual(['b.txt', 'fresh/x/y.txt'])
    expect([...update.dirs.keys()].sort()).toEqual(['fresh', 'fresh/x'])
    update.close()
    // The new directories had no watch before the update: read whole until the next refresh finds them watched.
    const after = await plan('omega')
    expect(after).toMatchObject({ changesFrom: 'watcher', changed: 2 })
    expect(await search(root, after, 'omega')).toMatchObject({ files: ['./b.txt', './fresh/x/y.txt'] })
    // A change inside a new directory after the hand-over is the new watcher's.
    writeFileSync(join(root, 'fresh/x/z.txt'), 'omega\n')
    writeFileSync(join(root, 'a.txt'), 'omega\n')
    expect((await search(root, await plan('omega'), 'omega')).files).toEqual(['./a.txt', './b.txt', './fresh/x/y.txt', './fresh/x/z.txt'])
    // The second refresh keys the first's files again with the new ones: an update holds every change since the build.
    expect(await index.refresh(root)).toMatchObject({ kind: 'updated', files: 4, handedOn: true })
    expect(await search(root, await plan('omega'), 'omega')).toEqual({
      files: ['./a.txt', './b.txt', './fresh/x/y.txt', './fresh/x/z.txt'],
      changed: 0,
    })
    expect(bash.runs).toBe(runs)
    // A process that starts later reads the same update, walking from its mark.
    const cold = createLocalSearchIndex({ dir: join(base, 'index'), broadFraction: 1, bash: createLocalBash({}) })
    const answer = await cold.plan({ dir: root, pattern: 'omega', caseInsensitive: false, multiline: false, signal })
    expect(await search(root, answer, 'omega')).toMatchObject({ changed: 0 })
  })

  it('loses no change made while it keys or hands on', async () => {
    const { root, index, plan } = await setup(FILES)
    await search(root, await plan('omega'), 'omega')
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    // New: the update lists it whole, and the old watcher has no watch on it.
    writeTree(root, { 'fresh/a.txt': 'beta\n' })
    const cut = TreeWatcher.prototype.cut
    // After the old watcher's cut: only it sees this one, and hands it on.
    vi.spyOn(TreeWatcher.prototype, 'cut').mockImplementation(function (this: TreeWatcher) {
      const at = cut.call(this)
      writeFileSync(join(root, 'src/deep/d.txt'), 'omega\n')
      return at
    })
    const start = TreeWatcher.start
    vi.spyOn(TreeWatcher, 'start').mockImplementation(async (...args) => {
      // Before the new watcher's watches: the old one sees the first, no watcher the second. After them: both do.
      writeFileSync(join(root, 'src/c.txt'), 'omega\n')
      writeFileSync(join(root, 'fresh/late.txt'), 'omega\n')
      const watcher = await start(...args)
      mkdirSync(join(root, 'src/late'))
      writeFileSync(join(root, 'src/late/e.txt'), 'omega\n')
      return watcher
    })
    expect(await index.refresh(root)).toMatchObject({ kind: 'updated', handedOn: true })
    vi.restoreAllMocks()
    expect((await search(root, await plan('omega'), 'omega')).files).toEqual([
      './b.txt',
      './fresh/late.txt',
      './src/c.txt',
      './src/deep/d.txt',
      './src/late/e.txt',
    ])
  })

  it('starts by itself once a search sees refreshAfter changes, and the next search waits for it', async () => {
    const { root, plan, home } = await setup(FILES, { refreshAfter: 2 })
    await search(root, await plan('omega'), 'omega')
    writeFileSync(join(root, 'a.txt'), 'omega\n')
    expect((await search(root, await plan('omega'), 'omega')).changed).toBe(1)
    expect(() => readFileSync(join(home, UPDATE_FILE))).toThrow()
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    expect((await search(root, await plan('omega'), 'omega')).changed).toBe(2)
    expect(await search(root, await plan('omega'), 'omega')).toEqual({ files: ['./a.txt', './b.txt'], changed: 0 })
    readFileSync(join(home, UPDATE_FILE))
  })

  it('is what `watches` says this process can do: a seeded watcher of the index of exactly that tree, as it is now', async () => {
    // The seed walk waits for the gate, so the test can ask while it runs.
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const bash = countingBash()
    let started = 0
    const gated: BashExecutor = {
      resolve: (request) => bash.resolve(request),
      run: async (spec) => {
        started++
        await gate
        return bash.run(spec)
      },
    }
    const { root, index: built } = await setup(FILES)
    const index = createLocalSearchIndex({ ...built.settings, bash: gated })
    writeTree(root, { 'sub/e.txt': 'epsilon\n' })
    expect(await index.watches(root)).toBe(false)
    const first = index.plan({ dir: root, pattern: 'omega', caseInsensitive: false, multiline: false, signal })
    expect(await waitUntil(() => started > 0, 5_000)).toBe(true)
    expect(await index.watches(root)).toBe(false)
    open()
    await search(root, await first, 'omega')
    expect(await index.watches(root)).toBe(true)
    // Not a tree the index only holds, and not for a process that keeps no watchers.
    expect(await index.watches(join(root, 'sub'))).toBe(false)
    const off = createLocalSearchIndex({ dir: index.settings.dir, watch: false, bash: createLocalBash({}) })
    expect(await off.watches(root)).toBe(false)
    // Not once the index is rebuilt by another process, damaged, or gone.
    const file = join(treeDir(index.settings.dir, root), INDEX_FILE)
    const kept = readFileSync(file)
    await buildIndex(index.settings, root)
    expect(await index.watches(root)).toBe(false)
    await search(root, await index.plan({ dir: root, pattern: 'omega', caseInsensitive: false, multiline: false, signal }), 'omega')
    expect(await index.watches(root)).toBe(true)
    writeFileSync(file, kept.subarray(0, 100), { mode: 0o600 })
    expect(await index.watches(root)).toBe(false)
    rmSync(file)
    expect(await index.watches(root)).toBe(false)
    await closeIndexWatchers()
    expect(await index.watches(root)).toBe(false)
  })

  it('cancelled, writes no update and keeps the index as it was', async () => {
    const { root, index, plan, home } = await setup(FILES)
    await search(root, await plan('omega'), 'omega')
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    const controller = new AbortController()
    controller.abort()
    expect(await index.refresh(root, { signal: controller.signal })).toEqual({
      kind: 'skipped',
      why: 'the update was not written (cancelled; the index is as it was)',
    })
    expect(() => statSync(join(home, UPDATE_FILE))).toThrow()
    expect(await index.refresh(root)).toMatchObject({ kind: 'updated', files: 1 })
  })

  it('is skipped, saying why, when no watcher can vouch for the changes or they are too many to key', async () => {
    const off = await setup(FILES, { watch: false })
    expect(await off.index.refresh(off.root)).toEqual({ kind: 'skipped', why: 'this process keeps no watchers (index-local.watch is off)' })
    const { root, index, plan, home } = await setup(FILES, { changedMaxEntries: 3 })
    expect(await index.refresh(join(base, 'nowhere'))).toMatchObject({ kind: 'skipped', why: expect.stringContaining('ENOENT') })
    expect(await index.refresh(base)).toEqual({ kind: 'skipped', why: 'no index covers the path' })
    expect(await index.refresh(root)).toEqual({
      kind: 'skipped',
      why: 'no watcher of this index has seen the tree since it was built: a search starts one',
    })
    await search(root, await plan('omega'), 'omega')
    // One new directory of four files: one change to the watcher, four files to key.
    writeTree(root, { 'many/1.txt': 'omega\n', 'many/2.txt': 'omega\n', 'many/3.txt': 'omega\n', 'many/4.txt': 'omega\n' })
    expect(await index.refresh(root)).toEqual({
      kind: 'skipped',
      why: '4 files to key since the build (changedMaxEntries 3): run dsh index',
    })
    rmSync(join(root, 'many'), { recursive: true })
    for (let i = 0; i < 4; i++) writeFileSync(join(root, `n${i}.txt`), 'omega\n')
    expect(await index.refresh(root)).toEqual({
      kind: 'skipped',
      why: 'more than 3 files and directories changed: run dsh index',
    })
    expect(() => readFileSync(join(home, UPDATE_FILE))).toThrow()
  })

  it('is skipped when the update cannot be written or the watcher breaks, and a search starts another', async () => {
    const { root, index, plan, home } = await setup(FILES)
    await search(root, await plan('omega'), 'omega')
    writeFileSync(join(root, 'a.txt'), 'omega\n')
    // Another instance in the process, with a smaller bound: watchers are the process's.
    const small = createLocalSearchIndex({
      ...index.settings,
      indexMaxBytes: statSync(join(home, INDEX_FILE)).size,
      bash: createLocalBash({}),
    })
    expect(await small.refresh(root)).toMatchObject({ kind: 'skipped', why: expect.stringMatching(/^the update was not written \(/) })
    vi.spyOn(TreeWatcher.prototype, 'sync').mockResolvedValueOnce(false)
    expect(await index.refresh(root)).toEqual({
      kind: 'skipped',
      why: 'the watcher cannot vouch for every change (its sync marker did not come)',
    })
    // The broken watcher is not used again.
    expect(await index.refresh(root)).toMatchObject({ kind: 'skipped', why: expect.stringContaining('no watcher') })
    expect((await search(root, await plan('omega'), 'omega')).files).toEqual(['./a.txt'])
    vi.spyOn(TreeWatcher, 'start').mockRejectedValueOnce(new Error('boom'))
    expect(await index.refresh(root)).toEqual({ kind: 'skipped', why: 'the refresh failed (boom)' })
  })

  it('writes the update but does not hand on when the new watcher cannot vouch, the old one broke, or the watchers were closed', async () => {
    for (const fault of ['new', 'old', 'closed'] as const) {
      const { root, index, plan, bash } = await setup(FILES)
      await search(root, await plan('omega'), 'omega')
      writeFileSync(join(root, 'a.txt'), 'omega\n')
      const sync = TreeWatcher.prototype.sync
      const cut = TreeWatcher.prototype.cut
      if (fault === 'new') vi.spyOn(TreeWatcher.prototype, 'sync').mockImplementationOnce(sync).mockResolvedValueOnce(false)
      vi.spyOn(TreeWatcher.prototype, 'cut').mockImplementation(function (this: TreeWatcher) {
        if (fault === 'old') this.broken = 'broken for the test'
        if (fault === 'closed') void closeIndexWatchers()
        return cut.call(this)
      })
      expect(await index.refresh(root)).toMatchObject({ kind: 'updated', files: 1, handedOn: false })
      vi.restoreAllMocks()
      // The next search starts a watcher from the update's mark, and walks.
      const runs = bash.runs
      writeFileSync(join(root, 'b.txt'), 'omega\n')
      expect(await search(root, await plan('omega'), 'omega')).toEqual({ files: ['./a.txt', './b.txt'], changed: 1 })
      expect(bash.runs).toBeGreaterThan(runs)
    }
  })
})

describe("a watcher's record of names", () => {
  it('gives the names recorded after a cut, takes names from another, and keeps none past its limit', async () => {
    const root = join(base, `w${count++}`)
    writeTree(root, { 'sub/a.txt': 'a\n' })
    const options = { syncDir: join(base, `sync-${count++}`), maxNames: 3, burstLimit: 1000 }
    const watcher = await TreeWatcher.start(
      root,
      new Map([
        ['', 1],
        ['sub', 2],
        ['gone', 3],
      ]),
      options,
    )
    expect([...watcher.watching]).toEqual([
      ['', 1],
      ['sub', 2],
    ])
    writeFileSync(join(root, 'x.txt'), '')
    expect(await watcher.sync(10_000)).toBe(true)
    const cut = watcher.cut()
    writeFileSync(join(root, 'sub/a.txt'), 'again\n')
    writeFileSync(join(root, 'x.txt'), 'again')
    expect(await watcher.sync(10_000)).toBe(true)
    expect(watcher.namedSince(cut)!.sort()).toEqual(['sub/a.txt', 'x.txt'])
    expect(watcher.namedSince(watcher.cut())).toEqual([])
    watcher.carry(['y.txt', 'z.txt'])
    expect(watcher.namedSince(cut)).toBeUndefined()
    watcher.close()
  })
})
