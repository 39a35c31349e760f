// Glob's times from the index: every time given is the file's own, recorded only where the watcher proves it unchanged, read otherwise.
import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FileTime, IndexTimesAnswer } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { buildIndex, closeIndexWatchers, createLocalSearchIndex, type LocalSearchIndex } from '../src/index.js'
import { encodeIndex, FilePaths, openIndexFile, UNREAD_DIR } from '../src/format.js'
import { INDEX_FILE, treeDir, UPDATE_FILE } from '../src/location.js'
import { TreeWatcher } from '../src/watcher.js'
import { failingBash } from '../../../test-support/failing-bash.js'
import { PathTable } from '../src/path-table.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'
import { writeAtomically } from '../src/build.js'
import { ensurePrivateDir } from '../src/location.js'

const base = scratchDir('index-times')
const signal = new AbortController().signal
const bash = createLocalBash({})
let count = 0

afterEach(async () => {
  await closeIndexWatchers()
  vi.restoreAllMocks()
})

const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'src/c.txt': 'gamma\n', 'src/deep/d.txt': 'delta\n', 'other/e.txt': 'eps\n' }

async function setup(files: Record<string, string> = FILES, options: Record<string, unknown> = {}) {
  const root = join(base, `t${count++}`)
  writeTree(root, files)
  const index = createLocalSearchIndex({ dir: join(base, 'index'), watch: true, refreshAfter: 0, ...options, bash })
  await buildIndex(index.settings, root)
  return { root, index }
}

/** Every file under `dir` (not links, not VCS directories), from `dir`. */
function filesUnder(dir: string): string[] {
  return execFileSync('find', ['.', '-type', 'f', '-printf', '%P\\0'], { cwd: dir }).toString().split('\0').filter(Boolean).sort()
}

function truth(path: string): FileTime {
  const ns = lstatSync(path, { bigint: true }).mtimeNs
  const nanos = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n
  return { seconds: Number((ns - nanos) / 1_000_000_000n), nanos: Number(nanos) }
}

async function times(index: LocalSearchIndex, dir: string): Promise<IndexTimesAnswer> {
  return index.times({ dir, signal })
}

/**
 * Asks for every file under `dir` and checks each time given is the file's own; returns which were
 * read now (the rest were recorded).
 */
function readNow(answer: IndexTimesAnswer, dir: string): string[] {
  if (answer.kind !== 'times') throw new Error(`${answer.reason}: ${answer.detail}`)
  const read: string[] = []
  for (const name of filesUnder(dir)) {
    const bytes = Buffer.from(name)
    const out = { seconds: 0, nanos: 0 }
    const how = answer.timeOf(bytes, 0, bytes.length, out)
    expect(how === 'recorded' || how === 'read', `${name}: ${JSON.stringify(how)}`).toBe(true)
    expect(out, name).toEqual(truth(join(dir, name)))
    if (how === 'read') read.push(name)
  }
  return read
}

describe('glob times from the index', () => {
  it('records every time the build read, and reads none while nothing changed', async () => {
    const { root, index } = await setup()
    const data = openIndexFile(join(treeDir(index.settings.dir, root), INDEX_FILE))
    for (let id = 0; id < data.files.length; id++) {
      const time = truth(join(root, data.files.at(id)))
      expect({ seconds: data.fileTimes.seconds[id], nanos: data.fileTimes.nanos[id] }).toEqual(time)
    }
    data.close()
    const answer = await times(index, root)
    expect(answer).toMatchObject({ kind: 'times', indexedFiles: 5, changed: 0 })
    expect(readNow(answer, root)).toEqual([])
  })

  it('reads what changed before the watcher started and after: edited, added, touched back in time, renamed in', async () => {
    const { root, index } = await setup()
    // Before the first answer: the watcher's seed walk finds it.
    writeFileSync(join(root, 'a.txt'), 'alpha again\n')
    expect(readNow(await times(index, root), root)).toEqual(['a.txt'])
    // After: events name them.
    writeFileSync(join(root, 'new.txt'), 'new\n')
    execFileSync('touch', ['-d', '2001-02-03 04:05:06.789 UTC', join(root, 'src/c.txt')])
    writeFileSync(join(root, 'other/moved.tmp'), 'moved\n')
    renameSync(join(root, 'other/moved.tmp'), join(root, 'other/e.txt'))
    const answer = await times(index, root)
    expect(answer).toMatchObject({ kind: 'times' })
    expect(readNow(answer, root)).toEqual(['a.txt', 'new.txt', 'other/e.txt', 'src/c.txt'])
  })

  it('reads everything below a directory replaced, and the own files of one whose entries changed', async () => {
    const { root, index } = await setup()
    expect(readNow(await times(index, root), root)).toEqual([])
    rmSync(join(root, 'src'), { recursive: true })
    writeTree(root, { 'src/c.txt': 'gamma\n', 'src/deep/d.txt': 'delta\n' })
    // The same names, new files: their times are read, whatever the index recorded.
    expect(readNow(await times(index, root), root)).toEqual(['src/c.txt', 'src/deep/d.txt'])
  })

  it('reads the own files of a directory the walk found changed, and everything below one it does not know', async () => {
    const { root, index } = await setup()
    rmSync(join(root, 'b.txt'))
    mkdirSync(join(root, 'fresh'))
    writeFileSync(join(root, 'fresh/f.txt'), 'f\n')
    // The first answer starts the watcher, whose seed walk names the root (an entry removed) and fresh/.
    expect(readNow(await times(index, root), root)).toEqual(['a.txt', 'fresh/f.txt'])
  })

  it('answers below a subdirectory, its names from there', async () => {
    const { root, index } = await setup()
    const src = join(root, 'src')
    const answer = await times(index, src)
    expect(answer).toMatchObject({ kind: 'times', indexedFiles: 2 })
    expect(readNow(answer, src)).toEqual([])
    writeFileSync(join(src, 'deep/d.txt'), 'delta again\n')
    expect(readNow(await times(index, src), src)).toEqual(['deep/d.txt'])
  })

  it("gives an update's times for what it keyed, and the index's for the rest", async () => {
    const { root, index } = await setup()
    expect(readNow(await times(index, root), root)).toEqual([])
    writeFileSync(join(root, 'b.txt'), 'beta again\n')
    writeTree(root, { 'added/g.txt': 'g\n' })
    expect(readNow(await times(index, root), root)).toEqual(['added/g.txt', 'b.txt'])
    expect(await index.refresh(root)).toMatchObject({ kind: 'updated', handedOn: true })
    // b.txt's time is the update's now; a directory new since the old watcher started is read whole
    // until the next refresh (docs/design.md#a-warm-process-updates-its-index).
    expect(readNow(await times(index, root), root)).toEqual(['added/g.txt'])
    writeFileSync(join(root, 'b.txt'), 'beta a third time\n')
    expect(readNow(await times(index, root), root)).toEqual(['added/g.txt', 'b.txt'])
    expect(await index.refresh(root)).toMatchObject({ kind: 'updated', handedOn: true })
    expect(readNow(await times(index, root), root)).toEqual([])
  })

  it('says why a file it cannot time is left out', async () => {
    const { root, index } = await setup()
    const answer = await times(index, root)
    if (answer.kind !== 'times') throw new Error('no times')
    const out = { seconds: 0, nanos: 0 }
    const name = Buffer.from('never-there.txt')
    expect(answer.timeOf(name, 0, name.length, out)).toEqual({ unreadable: 'No such file or directory' })
    const below = Buffer.from('a.txt/x')
    expect(answer.timeOf(below, 0, below.length, out)).toEqual({ unreadable: expect.stringMatching(/ENOTDIR/) })
  })

  it('reads the time of a file the build could not, and everything in a directory it could not list', async () => {
    const root = join(base, `t${count++}`)
    writeTree(root, { 'a.txt': 'a\n', 'locked/b.txt': 'b\n' })
    const index = createLocalSearchIndex({ dir: join(base, 'index'), watch: true, refreshAfter: 0, bash })
    const home = treeDir(index.settings.dir, root)
    await ensurePrivateDir(index.settings.dir)
    await ensurePrivateDir(home)
    // Written by hand: a.txt with no time recorded, locked/ unread at the build, marked at the
    // directory's own ctime so nothing reads as changed since.
    const mark = lstatSync(join(root, 'locked'), { bigint: true }).ctimeNs
    const { parts } = encodeIndex({
      header: { root, builtAtNs: mark.toString(), covers: 'test' },
      files: ['a.txt'],
      fileFlags: new Uint8Array(1),
      dirs: [
        ['', Number(lstatSync(root).ino)],
        ['locked', UNREAD_DIR],
        // Its parent not listed: a directory table takes it as a root of its own.
        ['gone/away', UNREAD_DIR],
      ],
      keys: new Uint32Array(0),
      starts: Uint32Array.from([0]),
      postings: [],
    })
    await writeAtomically(join(home, INDEX_FILE), parts)
    expect(readNow(await times(index, root), root)).toEqual(['a.txt', 'locked/b.txt'])
  })

  it('reads every time when the clock is behind the build, the seed walk fails, the watcher cannot vouch or keeps too few names', async () => {
    const { root, index } = await setup()
    vi.spyOn(Date, 'now').mockReturnValueOnce(0)
    expect(await times(index, root)).toMatchObject({ kind: 'full-scan', reason: 'freshness', detail: /clock is earlier/ })
    const broken = createLocalSearchIndex({ dir: index.settings.dir, watch: true, bash: failingBash(bash, 'broken') })
    expect(await times(broken, root)).toMatchObject({
      kind: 'full-scan',
      reason: 'freshness',
      detail: /change walk did not finish \(broken\)/,
    })
    await closeIndexWatchers()
    const few = createLocalSearchIndex({ dir: index.settings.dir, watch: true, changedMaxEntries: 2, bash })
    expect(readNow(await times(few, root), root)).toEqual([])
    writeTree(root, { 'x.txt': '1', 'y.txt': '2', 'z.txt': '3' })
    expect(await times(few, root)).toMatchObject({ kind: 'full-scan', reason: 'changed', detail: /more than 2/ })
    await closeIndexWatchers()
    // A new watcher's seed walk finds the root's entries changed: its own files are read.
    expect(readNow(await times(index, root), root)).toEqual(['a.txt', 'b.txt', 'x.txt', 'y.txt', 'z.txt'])
    vi.spyOn(TreeWatcher.prototype, 'sync').mockResolvedValueOnce(false)
    expect(await times(index, root)).toMatchObject({ kind: 'full-scan', reason: 'freshness', detail: /cannot vouch/ })
  })

  it('starts a refresh once refreshAfter changes are read, and answers meanwhile', async () => {
    const { root, index } = await setup(FILES, { refreshAfter: 2 })
    expect(readNow(await times(index, root), root)).toEqual([])
    writeTree(root, { 'x.txt': '1', 'y.txt': '2' })
    expect(readNow(await times(index, root), root)).toEqual(['x.txt', 'y.txt'])
    // The next answer waits for the refresh, and the update's times hold.
    expect(readNow(await times(index, root), root)).toEqual([])
    expect(statSync(join(treeDir(index.settings.dir, root), UPDATE_FILE)).isFile()).toBe(true)
  })

  it('answers only with a watcher that vouches, for the directory indexed, within changedMaxEntries', async () => {
    const { root, index } = await setup(FILES, { watch: false })
    expect(await times(index, root)).toMatchObject({ kind: 'full-scan', reason: 'freshness', detail: /no watcher/ })
    const watched = createLocalSearchIndex({ dir: index.settings.dir, watch: true, changedMaxEntries: 2, bash })
    expect(await times(watched, join(base, 'nowhere'))).toMatchObject({ kind: 'full-scan', reason: 'no-index' })
    mkdirSync(join(root, 'made-later'))
    expect(await times(watched, join(root, 'made-later'))).toMatchObject({ kind: 'full-scan', reason: 'changed' })
    writeTree(root, { 'x/1.txt': '1', 'y/2.txt': '2', 'z/3.txt': '3' })
    expect(await times(watched, root)).toMatchObject({ kind: 'full-scan', reason: 'changed' })
  })
})

describe('the path table', () => {
  it('finds each path by its bytes after a prefix, and nothing else', () => {
    const names = Array.from({ length: 3000 }, (_, i) => `dir${i % 7}/\xff${i}.ts`)
    names.push('')
    const table = new PathTable(new FilePaths(names.join('\0')))
    names.forEach((name, id) => {
      const bytes = Buffer.from(name.slice(5), 'latin1')
      expect(table.find(name.slice(0, 5), bytes, 0, bytes.length)).toBe(id)
    })
    const missing = Buffer.from('dir2/\xff8.ts', 'latin1')
    expect(table.find('', missing, 0, missing.length)).toBe(-1)
    expect(table.find('dir', missing, 0, 3)).toBe(-1)
    expect(new PathTable(new FilePaths(undefined)).find('', missing, 0, 0)).toBe(-1)
  })

  it('tells apart paths whose hashes agree: of another length, or the same length', () => {
    // Pairs FNV-1a (32 bits) hashes alike.
    const table = new PathTable(new FilePaths(['costarring', 'declinate'].join('\0')))
    const find = (prefix: string, rest: string) => table.find(prefix, Buffer.from(rest), 0, rest.length)
    expect([find('', 'liquid'), find('', 'macallums'), find('mac', 'allums'), find('', 'declinate'), find('decl', 'inate')]).toEqual([
      -1, -1, -1, 1, 1,
    ])
  })
})
