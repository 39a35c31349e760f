// The remembered link scan with a watch, over a fake file system, fake watches and fake scans: when a
// watch starts, what it spares, what its events make read again or walk, and when it is given up
// (docs/design.md#a-watched-tree-needs-no-link-stats).
import { describe, expect, it } from 'vitest'
import type { DirectoryWatch, FileSystem, PathStamp, WatchedChanges } from '@dsh/core'
import {
  closeWatches,
  LinkScanMemory,
  nameIn,
  stampOf,
  type RunScan,
  type Scan,
  type ScannedDir,
} from '../../src/engine/link-scan-memory.js'
import { runner, UNSTOPPED } from './scan-runner.js'

const SETTLE_MS = 1000
const NOW = 1_000_000
const OLD = BigInt(NOW - 10 * SETTLE_MS) * 1_000_000n

/** A directory's stamp: `version` stands for its change time, `ino` and `dev` for its identity. */
const stamped = (version = 0, ino = '7', dev = '1'): PathStamp => ({
  kind: 'directory',
  dev,
  ino,
  mtimeNs: String(OLD),
  ctimeNs: String(OLD + BigInt(version)),
})

const dir = (name: string, depth = 0, version = 0, dev = '1'): ScannedDir => ({
  name,
  depth,
  stamp: stampOf(stamped(version, '7', dev)),
  changedNs: OLD + BigInt(version),
})

const scan = (dirs: ScannedDir[], links: Scan['links'] = []): Scan => ({ links, workdir: '/w', complete: true, dirs })

/** A watch that records what it is asked and reports what a test queues. */
interface FakeWatch extends DirectoryWatch {
  added: string[]
  removed: string[]
  closed: boolean
  queue: (changes: Record<string, string[] | 'many'> | undefined) => void
  looks: number
}

function fakeWatch(unwatchable: readonly string[] = []): FakeWatch {
  let next: WatchedChanges | undefined = new Map()
  const watch: FakeWatch = {
    added: [],
    removed: [],
    closed: false,
    looks: 0,
    add: async (paths) => {
      watch.added.push(...paths)
      return paths.filter((path) => unwatchable.includes(path))
    },
    remove: (paths) => void watch.removed.push(...paths),
    changes: async () => {
      watch.looks++
      const changes = next
      next = new Map()
      return changes
    },
    close: () => void (watch.closed = true),
    queue: (changes) => {
      next =
        changes === undefined
          ? undefined
          : new Map(Object.entries(changes).map(([dir, names]) => [dir, names === 'many' ? 'many' : new Set(names)]))
    },
  }
  return watch
}

type Fs = FileSystem & { stampMany: NonNullable<FileSystem['stampMany']>; statted: string[][]; starts: number }

/** The fake file system over `stamps`, handing out `watches` in turn (undefined: it cannot watch). */
function fakeFs(stamps: Map<string, PathStamp>, watches: Array<FakeWatch | undefined | 'throw'>): Fs {
  const fs: Fs = {
    statted: [],
    starts: 0,
    stat: async () => ({ kind: 'directory' as const, sizeBytes: 0, mtimeMs: 0 }),
    readLines: async () => {
      throw new Error('unused')
    },
    realpath: async (path: string) => path,
    stampMany: async (paths, { follow }) => {
      if (!follow) fs.statted.push([...paths])
      return paths.map((path) => (follow ? { kind: 'directory' as const } : (stamps.get(path) ?? { kind: 'missing' as const })))
    },
    watchDirectories: async () => {
      fs.starts++
      const watch = watches.shift()
      if (watch === 'throw') throw new Error('no watching here')
      return watch
    },
  }
  return fs
}

/** `/w/r` holding `a` (with `a/c` and the link `a/l`) and `b`. */
const tree = () => scan([dir('.'), dir('a', 1), dir('a/c', 2), dir('b', 1)], [{ name: 'a/l', target: { type: 'd', text: '/x' } }])
const ALL = ['/w/r', '/w/r/a', '/w/r/a/c', '/w/r/b']

/** A memory that walked the tree, searched it again (starting a watch) and proved every directory: watched from now on. */
async function watched(options: { unwatchable?: string[]; answers?: Array<Scan | string> } = {}) {
  const stamps = new Map(ALL.map((path) => [path, stamped()]))
  const watch = fakeWatch(options.unwatchable)
  const fs = fakeFs(stamps, [watch])
  const run = runner([tree(), ...(options.answers ?? [])])
  const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
  await memory.scan('k', 'r', fs, run, UNSTOPPED)
  expect(fs.starts).toBe(0)
  await memory.scan('k', 'r', fs, run, UNSTOPPED)
  await memory.watchesStarted()
  expect(fs.starts).toBe(1)
  expect(watch.added).toEqual(ALL)
  // The first search with the watch in place stats every directory once, proving each record current.
  await memory.scan('k', 'r', fs, run, UNSTOPPED)
  fs.statted.length = 0
  return { memory, fs, run, watch, stamps }
}

describe('LinkScanMemory with a watch', () => {
  it('watches from the second search on, then stats only the root while no event came', async () => {
    const { memory, fs, run, watch } = await watched()
    expect(await memory.scan('k', 'r', fs, run, UNSTOPPED)).toEqual({
      links: [{ name: 'a/l', target: { type: 'd', text: '/x' } }],
      workdir: '/w',
      complete: true,
    })
    expect(fs.statted).toEqual([['/w/r']])
    expect(run.calls).toEqual([[['.'], 'all']])
    expect(watch.looks).toBe(2)
  })

  it('reads again one level of a directory an event came from', async () => {
    const { memory, fs, run, watch } = await watched({
      answers: [scan([dir('a', 0, 1), dir('a/c', 1)], [{ name: 'a/l2', target: { type: 'f', text: 'x' } }])],
    })
    watch.queue({ '/w/r/a': ['file.txt'] })
    expect(((await memory.scan('k', 'r', fs, run, UNSTOPPED)) as Scan).links.map((link) => link.name)).toEqual(['a/l2'])
    expect(run.calls.at(-1)).toEqual([['a'], 'one'])
    expect(fs.statted).toEqual([['/w/r']])
    // Read again under its watch: vouched for, not pending.
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(fs.statted.at(-1)).toEqual(['/w/r'])
  })

  it('walks whole a directory an event names, reads its parent again, and watches it anew', async () => {
    const { memory, fs, run, watch, stamps } = await watched({
      answers: [
        scan([dir('.'), dir('a', 1), dir('b', 1)]),
        scan([dir('a', 0), dir('a/n', 1)], [{ name: 'a/n/l', target: { type: 'd', text: '/y' } }]),
      ],
    })
    stamps.set('/w/r/a/n', stamped())
    watch.queue({ '/w/r': ['a', 'file'] })
    expect(((await memory.scan('k', 'r', fs, run, UNSTOPPED)) as Scan).links).toEqual([
      { name: 'a/n/l', target: { type: 'd', text: '/y' } },
    ])
    expect(run.calls.slice(1)).toEqual([
      [['.'], 'one'],
      [['a'], 'all'],
    ])
    // a and a/c may be other inodes now: their watches go, and a and a/n are watched, pending.
    expect(watch.removed).toEqual(['/w/r/a', '/w/r/a/c'])
    expect(watch.added.slice(ALL.length)).toEqual(['/w/r/a', '/w/r/a/n'])
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(fs.statted.at(-1)).toEqual(['/w/r', '/w/r/a', '/w/r/a/n'])
  })

  it.each([
    ['an event of the directory itself', { '/w/r/a': ['a'] }],
    ['more names than a watch keeps, in its parent', { '/w/r': 'many' }],
  ] as const)('walks whole a directory after %s', async (_, changes) => {
    const { memory, fs, run, watch } = await watched({
      answers: [scan([dir('.'), dir('a', 1), dir('b', 1)]), scan([dir('a'), dir('a/c', 1)]), scan([dir('b')])],
    })
    watch.queue(changes as Record<string, string[] | 'many'>)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(run.calls[1]).toEqual([['.'], 'one'])
    expect(run.calls.slice(2).every(([, depth]) => depth === 'all')).toBe(true)
    expect(run.calls.slice(2).flatMap(([starts]) => starts)).toContain('a')
  })

  it('ignores events of directories no longer watched or remembered', async () => {
    const { memory, fs, run, watch } = await watched()
    watch.queue({ '/w/r/gone': ['x'], '/w/r/a/c/d': ['y'] })
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(run.calls).toHaveLength(1)
  })

  it('keeps statting a directory it could not watch, and walks below a pending one whose stamp moved', async () => {
    const { memory, fs, run, stamps } = await watched({
      unwatchable: ['/w/r/a'],
      answers: [scan([dir('a', 0, 1), dir('a/c', 1)]), scan([dir('a/c')])],
    })
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(fs.statted).toEqual([['/w/r', '/w/r/a']])
    stamps.set('/w/r/a', stamped(1))
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    // Its subdirectory's watch vouched for nothing while a was unproven: walked whole.
    expect(run.calls.slice(1)).toEqual([
      [['a'], 'one'],
      [['a/c'], 'all'],
    ])
  })

  it('reads the root again when its stamp moved, keeping what lies below it, watched or not', async () => {
    const { memory, fs, run, stamps } = await watched({
      unwatchable: ['/w/r/b'],
      answers: [scan([dir('.', 0, 1), dir('a', 1), dir('b', 1)])],
    })
    stamps.set('/w/r', stamped(1))
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(fs.statted).toEqual([['/w/r', '/w/r/b']])
    expect(run.calls.slice(1)).toEqual([[['.'], 'one']])
  })

  it('stats every directory when its watch can no longer vouch, and starts another at the next search', async () => {
    const { memory, fs, run, watch } = await watched()
    const second = fakeWatch()
    ;(fs as unknown as { watchDirectories: () => Promise<DirectoryWatch> }).watchDirectories = async () => (fs.starts++, second)
    watch.queue(undefined)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(watch.closed).toBe(true)
    expect(fs.statted).toEqual([ALL])
    await memory.watchesStarted()
    expect(fs.starts).toBe(2)
    expect(second.added).toEqual(ALL)
  })

  it('walks again when the root is another directory, closing its watch', async () => {
    const { memory, fs, run, watch, stamps } = await watched({ answers: [tree()] })
    stamps.set('/w/r', stamped(0, '8'))
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(run.calls.at(-1)).toEqual([['.'], 'all'])
    expect(watch.closed).toBe(true)
  })

  it('asks no watch of a file system that has none, a memory told not to, or a tree that spans devices; and gives up after three', async () => {
    const stamps = new Map(ALL.map((path) => [path, stamped()]))
    const spanning = new Map([...stamps, ['/w/r/a', stamped(0, '7', '2')]])
    for (const [memory, walk, known] of [
      [new LinkScanMemory(SETTLE_MS, () => NOW, false), tree(), stamps],
      [new LinkScanMemory(SETTLE_MS, () => NOW), scan([dir('.'), dir('a', 1, 0, '2'), dir('a/c', 2), dir('b', 1)]), spanning],
    ] as const) {
      const fs = fakeFs(known, [fakeWatch()])
      const run = runner([walk])
      for (let i = 0; i < 3; i++) await memory.scan('k', 'r', fs, run, UNSTOPPED)
      await memory.watchesStarted()
      expect(fs.starts).toBe(0)
    }
    const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
    const fs = fakeFs(stamps, [undefined, 'throw', undefined, fakeWatch()])
    const run = runner([tree()])
    for (let i = 0; i < 6; i++) {
      await memory.scan('k', 'r', fs, run, UNSTOPPED)
      await memory.watchesStarted()
    }
    expect(fs.starts).toBe(3)
    expect(fs.statted.at(-1)).toEqual(ALL)
  })

  it("closes a root's watch when it is forgotten, walked again, or its starting watch comes too late", async () => {
    const { memory, fs, run, watch } = await watched({ answers: Array.from({ length: 16 }, () => scan([dir('.')])) })
    for (let i = 0; i < 16; i++) await memory.scan(`other-${i}`, 'r', fs, run, UNSTOPPED)
    expect(watch.closed).toBe(true)

    // A watch that starts only after its root was walked again is closed at once.
    const stamps = new Map(ALL.map((path) => [path, stamped()]))
    const late = fakeWatch()
    let arrive: (watch: FakeWatch) => void = () => undefined
    const slow = fakeFs(stamps, [])
    slow.watchDirectories = () => new Promise((resolve) => (arrive = resolve))
    const again = new LinkScanMemory(SETTLE_MS, () => NOW)
    const walks = runner([tree(), tree()])
    await again.scan('k', 'r', slow, walks, UNSTOPPED)
    await again.scan('k', 'r', slow, walks, UNSTOPPED)
    stamps.set('/w/r', stamped(1))
    // The root's reading fails: the scan cannot be proven, so it walks.
    const third = runner(['find failed', tree()])
    await again.scan('k', 'r', slow, third, UNSTOPPED)
    arrive(late)
    await again.watchesStarted()
    expect(late.closed).toBe(true)
  })

  it('leaves the scan it waited for, and its watch, to that search when its own signal aborts as it waits', async () => {
    const { memory, fs, run, watch } = await watched()
    let finish: (scan: Scan) => void = () => undefined
    const slowWalk: RunScan = () => new Promise((resolve) => (finish = resolve))
    // Two searches at once: one revalidates the remembered scan (and its watch); the other, whose
    // signal aborted as it waited its turn, walks alone (in a real search its walk stops at once).
    const warm = memory.scan('k', 'r', fs, run, UNSTOPPED)
    const cold = memory.scan('k', 'r', fs, slowWalk, AbortSignal.abort())
    await warm
    finish(tree())
    expect(await cold).toEqual(tree())
    // Nothing of the stopped call's walk is kept: the revalidated scan stands, watched.
    expect(watch.closed).toBe(false)
    expect(memory.watchedRoots).toBe(1)
    expect(memory.size.roots).toBe(1)
  })

  it('matches the watches to the directories once it is in place, after searches that could not use it', async () => {
    const stamps = new Map(ALL.map((path) => [path, stamped()]))
    const watch = fakeWatch()
    let release: () => void = () => undefined
    const add = watch.add
    watch.add = async (paths) => {
      await new Promise<void>((resolve) => (release = resolve))
      return add(paths)
    }
    const fs = fakeFs(stamps, [watch])
    const run = runner([tree(), scan([dir('.', 0, 1), dir('a', 1), dir('b', 1), dir('n', 1)]), scan([dir('n')])])
    const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    // Not in place yet: this search stats as without a watch and finds a new directory n.
    stamps.set('/w/r', stamped(1))
    stamps.set('/w/r/n', stamped())
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    release()
    await memory.watchesStarted()
    watch.add = add
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(watch.added).toEqual([...ALL, '/w/r/n'])
  })

  it("needs no look at its watch while the index's mark holds", async () => {
    const { memory, fs, run, watch } = await watched()
    const quiet = async () => 'm'
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    expect(watch.looks).toBe(2)
    expect(fs.statted).toEqual([['/w/r'], []])
  })

  it('forgets a directory it could not watch once it is gone, and takes one made by its name as new', async () => {
    const { memory, fs, run, watch, stamps } = await watched({
      unwatchable: ['/w/r/a/c'],
      answers: [scan([dir('a', 0, 1)]), scan([dir('a', 0, 2), dir('a/c', 1)]), scan([dir('a/c')])],
    })
    stamps.delete('/w/r/a/c')
    watch.queue({ '/w/r/a': ['c'] })
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    // Gone: no longer statted.
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(fs.statted.at(-1)).toEqual(['/w/r'])
    stamps.set('/w/r/a/c', stamped(3))
    watch.queue({ '/w/r/a': ['c'] })
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(run.calls.at(-1)).toEqual([['a/c'], 'all'])
  })

  it('forgets a pending directory gone under a search that could not use the watch yet', async () => {
    const stamps = new Map(ALL.map((path) => [path, stamped()]))
    const watch = fakeWatch()
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const add = watch.add
    watch.add = async (paths) => {
      await gate
      return add(paths)
    }
    const fs = fakeFs(stamps, [watch])
    const run = runner([tree(), scan([dir('.', 0, 1), dir('a', 1)])])
    const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    stamps.set('/w/r', stamped(1))
    stamps.delete('/w/r/b')
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    release()
    await memory.watchesStarted()
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(fs.statted.at(-1)).toEqual(['/w/r', '/w/r/a', '/w/r/a/c'])
    expect(watch.removed).toEqual(['/w/r/b'])
  })

  it('gives up its watch when a directory on another device (a mount) appears below the tree', async () => {
    const { memory, fs, run, watch, stamps } = await watched({
      answers: [scan([dir('.'), dir('a', 1), dir('b', 1), dir('mnt', 1, 0, '2')]), scan([dir('mnt', 0, 0, '2')])],
    })
    stamps.set('/w/r/mnt', stamped(0, '7', '2'))
    watch.queue({ '/w/r': ['mnt'] })
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(watch.closed).toBe(true)
    expect(watch.added).not.toContain('/w/r/mnt')
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    await memory.watchesStarted()
    // Every directory statted, as without a watch, and no other watch started while the mount is there.
    expect(fs.statted.at(-1)!.sort()).toEqual([...ALL, '/w/r/mnt'])
    expect(fs.starts).toBe(1)
    expect(memory.watchedRoots).toBe(0)
  })

  it('closes the watch of a search that failed', async () => {
    const { memory, fs, watch } = await watched()
    expect(memory.watchedRoots).toBe(1)
    watch.queue({ '/w/r/a': ['x'] })
    const stopped: RunScan = async () => {
      throw new Error('the search was stopped')
    }
    await expect(memory.scan('k', 'r', fs, stopped, UNSTOPPED)).rejects.toThrow('stopped')
    expect(watch.closed).toBe(true)
    expect(memory.size.roots).toBe(0)
  })

  it('names a directory from its path below the root, the file system root too', () => {
    expect([nameIn('/w/r', '/w/r'), nameIn('/w/r', '/w/r/a/b'), nameIn('/', '/'), nameIn('/', '/a/b')]).toEqual(['.', 'a/b', '.', 'a/b'])
  })

  it('closes every watch of a memory no one holds', () => {
    const watches = new Set([fakeWatch(), fakeWatch()])
    const [one, two] = watches
    closeWatches(watches)
    expect([one!.closed, two!.closed, watches.size]).toEqual([true, true, 0])
  })
})
