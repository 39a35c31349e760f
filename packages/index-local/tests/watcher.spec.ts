// A warm process's watcher: changes made right before a search are in its answer, and whenever it
// cannot vouch for every change (lost events, a limit, a marker it cannot write) the search walks.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, watch, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { BashExecutor, IndexAnswer } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { buildIndex, closeIndexWatchers, createLocalSearchIndex, type LocalIndexAnswer } from '../src/index.js'
import { encodeIndex, UNREAD_DIR } from '../src/format.js'
import { INDEX_FILE, treeDir } from '../src/location.js'
import { inotifyQueueLimit, TreeWatcher, type WatcherOptions } from '../src/watcher.js'
import { rgPath } from '@vscode/ripgrep'
import { budgetMs } from '../../../test-support/budget.js'
import { failingBash } from '../../../test-support/failing-bash.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'

const base = scratchDir('index-watch')
const signal = new AbortController().signal
const bash = createLocalBash({})
let count = 0

afterEach(async () => {
  // Awaited: a watcher still starting when the file's last test ends would add watches as the worker exits.
  await closeIndexWatchers()
  vi.restoreAllMocks()
})

async function setup(files: Record<string, string>, options: Record<string, unknown> = {}, executor: BashExecutor = bash) {
  const root = join(base, `t${count++}`)
  writeTree(root, files)
  // The trees here are a few files: one candidate of three is past the default broad share.
  const index = createLocalSearchIndex({ dir: join(base, 'index'), watch: true, broadFraction: 0.5, ...options, bash: executor })
  await buildIndex(index.settings, root)
  const plan = (pattern: string, dir = root) => index.plan({ dir, pattern, caseInsensitive: false, multiline: false, signal })
  return { root, index, plan }
}

function reason(answer: IndexAnswer): string {
  return answer.kind === 'full-scan' ? `${answer.reason}: ${answer.detail}` : 'candidates'
}

async function lines(answer: LocalIndexAnswer): Promise<string[]> {
  if (answer.kind !== 'candidates') throw new Error(reason(answer))
  const text = readFileSync(answer.ignoreFile!, 'utf8')
  await answer.release()
  return text.split('\n').filter(Boolean)
}

/** rg's answer with the plan's ignore file, and a full scan's: what the search would say either way. */
function rgBoth(root: string, answer: LocalIndexAnswer, pattern: string): [string, string] {
  if (answer.kind !== 'candidates') throw new Error(reason(answer))
  const rg = (extra: string[]) =>
    execFileSync(rgPath, ['--no-config', '--hidden', '-l', '--sort=path', ...extra, '--', pattern, '.'], { cwd: root })
      .toString()
      .split('\n')
      .sort()
      .join('\n')
  const run = (extra: string[]) => {
    try {
      return rg(extra)
    } catch {
      return ''
    }
  }
  return [run([`--ignore-file=${answer.ignoreFile}`]), run([])]
}

const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'src/c.txt': 'gamma\n', 'src/deep/d.txt': 'delta\n' }

describe('the watcher', () => {
  it('seeds itself with one walk, then answers from events: a change right before the search is in it', async () => {
    const { root, plan } = await setup(FILES)
    // Changed before the watcher exists: the seed walk finds it.
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    const first = await plan('omega')
    expect(first).toMatchObject({ kind: 'candidates', changesFrom: 'watcher', changed: 1 })
    expect(await lines(first)).toEqual(['*', '!/b.txt'])
    // Each change is made in this process immediately before the search: no event has been read yet.
    for (let i = 0; i < 20; i++) {
      writeFileSync(join(root, `src/deep/n${i}.txt`), `omega ${i}\n`)
      const answer = await plan('omega')
      expect(answer).toMatchObject({ kind: 'candidates', changesFrom: 'watcher' })
      const [indexed, full] = rgBoth(root, answer, 'omega')
      expect(indexed).toBe(full)
      expect(full).toContain(`src/deep/n${i}.txt`)
    }
  })

  it('names to rg no file an event named, nor one below a directory an event named', async () => {
    const { root, index, plan } = await setup(
      { 'a.txt': 'omega\n', 'src/c.txt': 'omega\n', 'src/deep/d.txt': 'omega\n', 'b.txt': 'beta\n' },
      { broadFraction: 1 },
    )
    await lines(await plan('omega'))
    writeFileSync(join(root, 'src/c.txt'), 'omega again\n')
    // Renamed away and back: the same directory, but an event named it.
    renameSync(join(root, 'src/deep'), join(root, 'src/gone'))
    renameSync(join(root, 'src/gone'), join(root, 'src/deep'))
    const answer = await index.plan({
      dir: root,
      pattern: 'omega',
      caseInsensitive: false,
      multiline: false,
      signal,
      walked: (local) => local,
    })
    expect(answer).toMatchObject({ kind: 'candidates', changesFrom: 'watcher', named: 1 })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.namedFile!, 'latin1')).toBe('a.txt\0')
    expect(await lines(answer)).toEqual(expect.arrayContaining(['!/src/c.txt', '!/src/deep/d.txt', '!/src/deep/**']))
  })

  it('reads a new or replaced directory whole, and a renamed one under its new name', async () => {
    const { root, plan } = await setup(FILES)
    await lines(await plan('omega'))
    writeTree(root, { 'fresh/x/y.txt': 'omega\n' })
    rmSync(join(root, 'src/deep'), { recursive: true })
    writeTree(root, { 'src/deep/z.txt': 'omega\n' })
    renameSync(join(root, 'src'), join(root, 'moved'))
    const answer = await plan('omega')
    const [indexed, full] = rgBoth(root, answer, 'omega')
    expect(indexed).toBe(full)
    expect(full.split('\n').filter(Boolean)).toEqual(['./fresh/x/y.txt', './moved/deep/z.txt'])
    expect(await lines(await plan('omega'))).toEqual(expect.arrayContaining(['!/fresh', '!/fresh/**', '!/moved', '!/moved/**']))
  })

  it('answers a search of a subdirectory with what changed under it only', async () => {
    const { root, plan } = await setup(FILES)
    // Before the watcher: the seed walk (of the whole tree) finds these; the first is outside the search.
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    writeFileSync(join(root, 'src/new.txt'), 'omega\n')
    expect(await lines(await plan('omega', join(root, 'src')))).toEqual(['*', '!/*', '!/new.txt'])
    writeFileSync(join(root, 'a.txt'), 'omega\n')
    writeFileSync(join(root, 'src/deep/d.txt'), 'omega\n')
    expect(await lines(await plan('omega', join(root, 'src')))).toEqual([
      '*',
      '!/*',
      '!/new.txt',
      '!/deep/',
      '!/deep/d.txt',
      '!/deep/d.txt/',
      '!/deep/d.txt/**',
    ])
    // A name no ignore line can hold.
    writeFileSync(join(root, 'src/deep/bad\nname'), 'omega\n')
    expect(reason(await plan('omega', join(root, 'src')))).toMatch(/^names: a changed entry has a name/)
  })

  it('reads the whole tree when more changed than it keeps', async () => {
    const { root, plan } = await setup(FILES, { changedMaxEntries: 2 })
    await lines(await plan('alpha'))
    writeTree(root, { 'x.txt': '1', 'y.txt': '2', 'z.txt': '3' })
    expect(reason(await plan('alpha'))).toMatch(/^changed: more than 2 files and directories changed/)
  })

  it('reads the whole tree when its seed walk fails', async () => {
    const { plan } = await setup(FILES, {}, failingBash(bash, 'broken'))
    expect(reason(await plan('alpha'))).toMatch(/^freshness: the change walk did not finish \(broken\)/)
  })

  it(
    'walks when its marker cannot be written, and is replaced after a burst that may have lost events',
    async () => {
      const { root, index, plan } = await setup(FILES)
      await lines(await plan('alpha'))
      // The sync directory replaced by a file: the marker cannot be written.
      const syncDir = join(treeDir(index.settings.dir, root), 'sync')
      rmSync(syncDir, { recursive: true })
      writeFileSync(syncDir, '')
      writeFileSync(join(root, 'a.txt'), 'omega\n')
      const walked = await plan('omega')
      expect(walked).toMatchObject({ kind: 'candidates', changesFrom: 'walk' })
      expect(await lines(walked)).toContain('!/a.txt')
      rmSync(syncDir)
      expect(await plan('omega')).toMatchObject({ kind: 'candidates', changesFrom: 'watcher' })
      // More events than the kernel queues while this process is busy: some are lost, and the search must not trust the rest.
      const files = inotifyQueueLimit()
      // In a watched directory: a new one's own entries raise no events (it is read whole).
      for (let i = 0; i < files; i++) writeFileSync(join(root, 'src', `f${i}`), 'x')
      writeFileSync(join(root, 'src', 'last.txt'), 'omega\n')
      const [one, two] = await Promise.all([plan('omega'), plan('omega')])
      // Both find the file. One walks; the other walks too, or, when the first had already dropped the
      // watcher, starts a new one (either may get there first).
      for (const answer of [one, two]) expect(rgBoth(root, answer, 'omega')[0]).toContain('src/last.txt')
      expect([one, two].map((answer) => (answer as { changesFrom?: string }).changesFrom)).toContain('walk')
      // The next search starts a new watcher, seeded by a walk of its own.
      expect(await plan('omega')).toMatchObject({ kind: 'candidates', changesFrom: 'watcher' })
    },
    budgetMs(60_000),
  )

  it('reads the whole tree when the tree is moved away, replaced by another, or moved back', async () => {
    const { root, plan } = await setup(FILES)
    await lines(await plan('alpha'))
    // Moved aside, not deleted, so that no directory made in its place can reuse its inode.
    renameSync(root, `${root}.aside`)
    expect(reason(await plan('alpha'))).toMatch(/^no-index: the search path does not exist/)
    writeTree(root, { 'fresh.txt': 'alpha again\n' })
    expect(reason(await plan('alpha'))).toMatch(/^changed: the search directory is not the one indexed/)
    // The indexed tree back under its name, changed meanwhile: its watcher heard it leave and cannot
    // vouch, so the search walks, and the walk finds the tree itself changed (a rename sets its ctime).
    rmSync(root, { recursive: true })
    writeTree(`${root}.aside`, { 'src/deep/new.txt': 'alpha too\n' })
    renameSync(`${root}.aside`, root)
    const answer = await plan('alpha')
    expect(answer).toMatchObject({ kind: 'candidates', changesFrom: 'walk' })
    expect(await lines(await plan('alpha'))).toContain('!/*')
    const [indexed, full] = rgBoth(root, answer, 'alpha')
    expect(indexed).toBe(full)
    expect(full).toContain('src/deep/new.txt')
    if (answer.kind === 'candidates') await answer.release()
  })

  it('reads a directory deleted and made again under the same name whole, whatever its inode', async () => {
    const { root, plan } = await setup(FILES)
    await lines(await plan('alpha'))
    rmSync(join(root, 'src/deep'), { recursive: true })
    writeTree(root, { 'src/deep/new.txt': 'alpha too\n' })
    const answer = await plan('alpha')
    expect(answer).toMatchObject({ changesFrom: 'watcher' })
    expect(rgBoth(root, answer, 'alpha')[0]).toContain('src/deep/new.txt')
  })

  it('starts a new watcher for a rebuilt index', async () => {
    const { root, index, plan } = await setup(FILES)
    await lines(await plan('alpha'))
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    await buildIndex(index.settings, root)
    expect(await plan('omega')).toMatchObject({ kind: 'candidates', changesFrom: 'watcher', changed: 0, candidates: 1 })
  })
})

/** `bash`, counting the commands it runs (the change walk is the index's only process). */
function countingBash(inner: BashExecutor = bash): BashExecutor & { runs: number } {
  const counted = {
    runs: 0,
    resolve: (request: Parameters<BashExecutor['resolve']>[0]) => inner.resolve(request),
    run: (spec: Parameters<BashExecutor['run']>[0]) => {
      counted.runs++
      return inner.run(spec)
    },
  }
  return counted
}

describe('prepare (docs/design.md#a-warm-process-loads-its-index-first)', () => {
  it('loads the index and seeds its watcher, so the first search starts no walk and sees changes since', async () => {
    const counted = countingBash()
    const { root, index, plan } = await setup(FILES, {}, counted)
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    await index.prepare({ dir: join(root, 'src'), signal })
    const seeded = counted.runs
    expect(seeded).toBeGreaterThan(0)
    writeFileSync(join(root, 'a.txt'), 'omega too\n')
    const answer = await plan('omega')
    expect(answer).toMatchObject({ kind: 'candidates', changesFrom: 'watcher', changed: 2 })
    expect(counted.runs).toBe(seeded)
    const [indexed, full] = rgBoth(root, answer, 'omega')
    expect(indexed).toBe(full)
  })

  it('walks again for the next search after a seed walk that failed', async () => {
    const counted = countingBash(failingBash(bash, 'broken'))
    const { root, index, plan } = await setup(FILES, {}, counted)
    await index.prepare({ dir: root, signal })
    const answer = await plan('alpha')
    expect(reason(answer)).toMatch(/^freshness: the change walk did not finish \(broken\)/)
    const runs = counted.runs
    expect(reason(await plan('alpha'))).toMatch(/^freshness:/)
    expect(counted.runs).toBeGreaterThan(runs)
  })

  it('does nothing without a watcher or an index, and never fails: the search says what is wrong', async () => {
    const counted = countingBash()
    const unwatched = await setup(FILES, { watch: false }, counted)
    await unwatched.index.prepare({ dir: unwatched.root, signal })
    const none = join(base, `none${count++}`)
    writeTree(none, { 'x.txt': 'x\n' })
    await unwatched.index.prepare({ dir: none, signal })
    expect(counted.runs).toBe(0)
    const { root, index, plan } = await setup(FILES)
    await expect(index.prepare({ dir: none, signal })).resolves.toBeUndefined()
    await expect(index.prepare({ dir: join(root, 'missing'), signal })).resolves.toBeUndefined()
    const file = join(treeDir(index.settings.dir, root), INDEX_FILE)
    writeFileSync(file, Buffer.concat([readFileSync(file).subarray(0, 100), Buffer.alloc(64)]))
    await expect(index.prepare({ dir: root, signal })).resolves.toBeUndefined()
    expect(reason(await plan('alpha'))).toMatch(/^refused: /)
  })
})

describe('the quiet mark', () => {
  it('stays the same while nothing below the directory changed since the build, and is gone for good after a change', async () => {
    const { root, index } = await setup(FILES)
    const mark = (dir = root) => index.unchangedMark({ dir, signal })
    const first = await mark()
    expect(first).toMatch(/^\d+:\d+:\d+:\d+$/)
    expect(await mark()).toBe(first)
    const sub = await mark(join(root, 'src'))
    expect(sub).toBe(first)
    // A change outside src leaves src quiet, not the root; one inside src, neither.
    writeFileSync(join(root, 'a.txt'), 'changed\n')
    expect(await mark()).toBeUndefined()
    expect(await mark(join(root, 'src'))).toBe(sub)
    writeFileSync(join(root, 'src/deep/d.txt'), 'changed\n')
    expect(await mark(join(root, 'src'))).toBeUndefined()
    expect(await mark(join(root, 'src/deep'))).toBeUndefined()
    // Written back as it was: still changed, as far as the watcher can tell.
    writeFileSync(join(root, 'src/deep/d.txt'), 'delta\n')
    expect(await mark(join(root, 'src'))).toBeUndefined()
    // A rebuild, and with it a new watcher: another mark.
    await buildIndex(index.settings, root)
    const rebuilt = await mark()
    expect(rebuilt).toMatch(/^\d+:\d+:\d+:\d+$/)
    expect(rebuilt).not.toBe(first)
  })

  it('is not given for what changed before the watcher started, a directory replaced or not indexed, or a path that is no directory', async () => {
    const { root, index } = await setup({ ...FILES, 'other/e.txt': 'epsilon\n' })
    const mark = (dir: string) => index.unchangedMark({ dir, signal })
    // Before the first search: the seed walk finds it.
    writeFileSync(join(root, 'src/c.txt'), 'changed\n')
    expect(await mark(join(root, 'src'))).toBeUndefined()
    expect(await mark(join(root, 'other'))).toMatch(/^\d+:\d+:\d+:\d+$/)
    // Replaced: another inode under the indexed name.
    renameSync(join(root, 'other'), join(root, 'other.old'))
    writeTree(root, { 'other/e.txt': 'epsilon\n' })
    expect(await mark(join(root, 'other'))).toBeUndefined()
    expect(await mark(join(root, 'a.txt'))).toBeUndefined()
    expect(await mark(join(root, 'missing'))).toBeUndefined()
    expect(await mark(join(base, 'not-indexed-anywhere'))).toBeUndefined()
    rmSync(join(root, 'other.old'), { recursive: true })
  })

  it('is not given, and the changes are walked for, on a file system that may change without an event here', async () => {
    for (const statfsType of [
      () => 0x6969,
      () => {
        throw new Error('statfs failed')
      },
    ]) {
      const { root, index, plan } = await setup(FILES, { statfsType })
      expect(await index.unchangedMark({ dir: root, signal })).toBeUndefined()
      expect(await plan('alpha')).toMatchObject({ kind: 'candidates', changesFrom: 'walk' })
    }
  })

  it('is not given without a watcher, below a directory the build could not read, or with the clock behind the build', async () => {
    const { root, index } = await setup(FILES)
    const off = createLocalSearchIndex({ dir: index.settings.dir, watch: false, bash })
    expect(await off.unchangedMark({ dir: root, signal })).toBeUndefined()
    // An index whose build could not list `locked`: it has no watch there.
    mkdirSync(join(root, 'locked'))
    const { parts } = encodeIndex({
      header: { root, builtAtNs: String(BigInt(Date.now()) * 1_000_000n), covers: 'test' },
      files: ['a.txt'],
      fileFlags: new Uint8Array(1),
      dirs: [
        ['', statSync(root).ino],
        ['src', statSync(join(root, 'src')).ino],
        ['locked', UNREAD_DIR],
      ],
      keys: new Uint32Array(0),
      starts: Uint32Array.from([0]),
      postings: [],
    })
    writeFileSync(join(treeDir(index.settings.dir, root), INDEX_FILE), Buffer.concat([...parts]))
    expect(await index.unchangedMark({ dir: root, signal })).toBeUndefined()
    expect(await index.unchangedMark({ dir: join(root, 'src'), signal })).toMatch(/^\d+:\d+:\d+:\d+$/)
    vi.spyOn(Date, 'now').mockReturnValue(0)
    expect(await index.unchangedMark({ dir: join(root, 'src'), signal })).toBeUndefined()
  })

  it('is not given while the watcher cannot vouch', async () => {
    const { root, index } = await setup(FILES)
    expect(await index.unchangedMark({ dir: root, signal })).toMatch(/^\d+:\d+:\d+:\d+$/)
    const syncDir = join(treeDir(index.settings.dir, root), 'sync')
    rmSync(syncDir, { recursive: true })
    writeFileSync(syncDir, '')
    expect(await index.unchangedMark({ dir: root, signal })).toBeUndefined()
    rmSync(syncDir)
  })
})

describe('the walk mark', () => {
  it('stays while files and directories change, and is gone once an ignore file or a repository below the directory does', async () => {
    const { root, index } = await setup({ ...FILES, 'src/.gitignore': '*.log\n', 'other/o.txt': 'omicron\n' })
    const mark = (dir = root) => index.walkMark({ dir, signal })
    const first = await mark()
    expect(first).toMatch(/^\d+:\d+:\d+:\d+$/)
    expect(first).toBe(await index.unchangedMark({ dir: root, signal }))
    // Written, added, removed, a directory made and one removed: the plan walks each of these itself.
    writeFileSync(join(root, 'a.txt'), 'changed\n')
    writeTree(root, { 'new/n.txt': 'nu\n', 'src/e.txt': 'epsilon\n' })
    rmSync(join(root, 'b.txt'))
    rmSync(join(root, 'src/deep'), { recursive: true })
    expect(await index.unchangedMark({ dir: root, signal })).toBeUndefined()
    expect(await mark()).toBe(first)
    // An ignore file written in src: gone for the root and src, not for a directory beside it.
    writeFileSync(join(root, 'src/.gitignore'), '*.txt\n')
    expect(await mark()).toBeUndefined()
    expect(await mark(join(root, 'src'))).toBeUndefined()
    expect(await mark(join(root, 'other'))).toBe(first)
    // A directory the index does not hold has no mark.
    expect(await mark(join(root, 'new'))).toBeUndefined()
    // Each other input of rg's walk, added.
    for (const name of ['.ignore', '.rgignore', '.git']) {
      const { root: other, index: otherIndex } = await setup(FILES)
      const before = await otherIndex.walkMark({ dir: other, signal })
      expect(before).toMatch(/^\d+:\d+:\d+:\d+$/)
      if (name === '.git') mkdirSync(join(other, 'src', name))
      else writeFileSync(join(other, 'src', name), 'c.txt\n')
      expect(await otherIndex.walkMark({ dir: other, signal })).toBeUndefined()
    }
  })
})

describe('TreeWatcher', () => {
  const options = (dir: string, extra: Partial<WatcherOptions> = {}): WatcherOptions => ({
    syncDir: join(dir, 'sync'),
    maxNames: 100,
    burstLimit: 1000,
    ...extra,
  })

  it('reads the kernel queue limit, with a default when it cannot', () => {
    const dir = join(base, 'limits')
    writeTree(dir, { good: '123\n', bad: 'many\n' })
    expect(inotifyQueueLimit(join(dir, 'good'))).toBe(123)
    expect(inotifyQueueLimit(join(dir, 'bad'))).toBe(16_384)
    expect(inotifyQueueLimit(join(dir, 'missing'))).toBe(16_384)
  })

  /** fs.watch, failing with `code` for the paths `fails` picks: the kernel's errors, on demand. */
  const failingWatch = (fails: (path: string) => string | undefined): typeof watch =>
    ((path: string | Buffer, ...rest: unknown[]) => {
      const code = fails(path.toString())
      if (code === 'none') throw new Error('no code')
      if (code !== undefined) throw Object.assign(new Error(code), { code })
      return (watch as (...args: unknown[]) => ReturnType<typeof watch>)(path, ...rest)
    }) as typeof watch

  it('skips unread and vanished directories, yields between batches, and reads an unwatchable one whole', async () => {
    const root = join(base, 'w-skip')
    writeTree(root, { 'a/x.txt': '1', 'locked/y.txt': '2' })
    const dirs = new Map([
      ['', 1],
      ['a', 2],
      ['gone', 3],
      ['unread', -1],
      ['locked', 4],
    ])
    const watch = failingWatch((path) => (path.endsWith('/locked') ? 'EACCES' : path.endsWith('/a') ? 'none' : undefined))
    const watcher = await TreeWatcher.start(root, dirs, options(root, { batch: 1, watch }))
    expect(watcher.changes()).toBeUndefined()
    watcher.walked = []
    expect(await watcher.sync(budgetMs(5000))).toBe(true)
    expect([...watcher.changes()!.named]).toEqual(['a', 'locked'])
    writeFileSync(join(root, 'x.txt'), '3')
    expect(await watcher.sync(budgetMs(5000))).toBe(true)
    expect([...watcher.changes()!.named]).toEqual(['a', 'locked', 'x.txt'])
    watcher.close()
  })

  it.each([
    [
      'a watch limit',
      (path: string) => (path.endsWith('/a') ? 'ENOSPC' : undefined),
      /could not be watched \(ENOSPC; fs.inotify.max_user_watches/,
    ],
    ['too many open files', (path: string) => (path.endsWith('/a') ? 'EMFILE' : undefined), /could not be watched \(EMFILE/],
    ['an unwatchable root', (path: string) => (path.endsWith('w-limit') ? 'EACCES' : undefined), /could not be watched \(EACCES/],
    [
      'an unwatchable root without an error code',
      (path: string) => (path.endsWith('w-limit') ? 'none' : undefined),
      /could not be watched \(error;/,
    ],
    ['an unwatchable sync directory', (path: string) => (path.endsWith('/sync') ? 'EACCES' : undefined), /could not be watched \(EACCES/],
  ])('cannot vouch for anything after %s', async (_label, fails, why) => {
    const root = join(base, 'w-limit')
    writeTree(root, { 'a/x.txt': '1', 'b/y.txt': '2' })
    const watcher = await TreeWatcher.start(
      root,
      new Map([
        ['', 1],
        ['a', 2],
        ['b', 3],
      ]),
      options(root, { watch: failingWatch(fails) }),
    )
    expect(watcher.broken).toMatch(why)
    expect(await watcher.sync(budgetMs(5000))).toBe(false)
    watcher.close()
  })

  it('cannot vouch after a burst as long as the queue, an event without a name, or a failed watch', async () => {
    const root = join(base, 'w-broken')
    writeTree(root, { 'a/x.txt': '1' })
    const burst = await TreeWatcher.start(root, new Map([['', 1]]), options(root, { burstLimit: 3 }))
    for (let i = 0; i < 10; i++) writeFileSync(join(root, `b${i}`), 'x')
    expect(await burst.sync(budgetMs(5000))).toBe(false)
    expect(burst.broken).toMatch(/a burst filled the inotify queue/)
    burst.close()

    const handles = (w: TreeWatcher) => (w as unknown as { handles: Array<{ emit(event: string, ...args: unknown[]): void }> }).handles
    const unnamed = await TreeWatcher.start(root, new Map([['', 1]]), options(root))
    handles(unnamed)[1]!.emit('change', 'rename', null)
    expect(await unnamed.sync(budgetMs(5000))).toBe(false)
    expect(unnamed.broken).toBe('an event came without a name')
    unnamed.close()

    const failed = await TreeWatcher.start(root, new Map([['', 1]]), options(root))
    handles(failed)[1]!.emit('error', new Error('boom'))
    expect(failed.broken).toBe('the watch failed (boom)')
    failed.close()
  })

  it('breaks when its marker cannot be written or its event never comes', async () => {
    const root = join(base, 'w-late')
    writeTree(root, { 'x.txt': '1' })
    const late = await TreeWatcher.start(root, new Map([['', 1]]), options(root))
    ;(late as unknown as { waiters: { set(): void } }).waiters.set = () => undefined
    expect(await late.sync(1)).toBe(false)
    expect(late.broken).toBe("the sync marker's event did not come within 1 ms")
    late.close()

    const unwritable = await TreeWatcher.start(root, new Map([['', 1]]), options(root, { syncDir: join(root, 'x.txt') }))
    expect(await unwritable.sync(budgetMs(5000))).toBe(false)
    expect(unwritable.broken).toMatch(/^the sync marker could not be written \(ENOTDIR/)
    unwritable.close()
  })
})
