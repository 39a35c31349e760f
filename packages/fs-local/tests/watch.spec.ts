// watchDirectories against real inotify: what the events name, the sync that proves they all came, and
// every way the watch gives up rather than vouch for a tree it may have missed a change in.
import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, rmdirSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { DirectoryWatch } from '@dsh/core'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { createLocalFileSystem } from '../src/file-system.js'
import { removeDeadSyncDirs, removeSyncDir, watchDirectories, type WatchOptions } from '../src/watch.js'

const scratch = scratchDir('fs-local-watch')
let serial = 0
const open: DirectoryWatch[] = []
afterEach(() => {
  for (const watch of open.splice(0)) watch.close()
})

/** A fresh tree of `dirs` under the scratch directory. */
function tree(...dirs: string[]): string {
  const root = join(scratch, `t${serial++}`)
  for (const dir of ['', ...dirs]) mkdirSync(join(root, dir), { recursive: true })
  return root
}

async function watching(root: string, options?: WatchOptions): Promise<DirectoryWatch> {
  const watch = await watchDirectories(root, options)
  expect(watch).toBeDefined()
  open.push(watch!)
  return watch!
}

/** The changes as plain data: directory → sorted names (or 'many'). */
async function changes(watch: DirectoryWatch): Promise<Record<string, string[] | 'many'> | undefined> {
  const found = await watch.changes()
  if (found === undefined) return undefined
  return Object.fromEntries([...found].map(([dir, names]) => [dir, names === 'many' ? 'many' : [...names].sort()]))
}

/** A stand-in for fs.watch that keeps each listener, so a test can deliver what the kernel could. */
function standIn(): {
  watch: typeof watch
  emit: (index: number, name: Buffer | string | null) => void
  handles: ReturnType<typeof watch>[]
} {
  const listeners: Array<(event: string, name: Buffer | string | null) => void> = []
  const handles: ReturnType<typeof watch>[] = []
  const fake = ((path: string, options: object, listener: (event: string, name: Buffer | string | null) => void) => {
    const handle = watch(path, options as never, listener as never)
    listeners.push(listener)
    handles.push(handle)
    return handle
  }) as unknown as typeof watch
  return { watch: fake, emit: (index, name) => listeners[index]!('rename', name), handles }
}

describe('watchDirectories', () => {
  it('names the entries made, changed and removed, by the directory watched, once each', async () => {
    const root = tree('a', 'b')
    writeFileSync(join(root, 'a/old'), 'x')
    const watch = await watching(root)
    expect(await watch.add([root, join(root, 'a')])).toEqual([])
    expect(await changes(watch)).toEqual({})
    writeFileSync(join(root, 'a/new'), 'x')
    rmSync(join(root, 'a/old'))
    mkdirSync(join(root, 'c'))
    // b is not watched: nothing is said of it.
    writeFileSync(join(root, 'b/unseen'), 'x')
    expect(await changes(watch)).toEqual({ [root]: ['c'], [join(root, 'a')]: ['new', 'old'] })
    expect(await changes(watch)).toEqual({})
  })

  it('names a watched directory by its own last part when it is itself removed or moved', async () => {
    const root = tree('gone', 'moved')
    const watch = await watching(root)
    await watch.add([join(root, 'gone'), join(root, 'moved')])
    rmdirSync(join(root, 'gone'))
    renameSync(join(root, 'moved'), join(root, 'elsewhere'))
    const found = await changes(watch)
    expect(found![join(root, 'gone')]).toContain('gone')
    expect(found![join(root, 'moved')]).toContain('moved')
  })

  it('keeps only "many" for a directory past 256 names', async () => {
    const root = tree()
    const watch = await watching(root)
    await watch.add([root])
    for (let i = 0; i < 300; i++) writeFileSync(join(root, `f${i}`), '')
    expect(await changes(watch)).toEqual({ [root]: 'many' })
  })

  it('stops reporting a directory removed from the watch, and a closed watch reports nothing', async () => {
    const root = tree('a')
    const watch = await watching(root)
    await watch.add([root, join(root, 'a')])
    watch.remove([join(root, 'a'), join(root, 'never-watched')])
    writeFileSync(join(root, 'a/f'), '')
    expect(await changes(watch)).toEqual({})
    watch.close()
    expect(await watch.changes()).toBeUndefined()
    expect(await watch.add([root])).toEqual([root])
  })

  it('is not made for a file system that may change without an event here, or whose type cannot be read', async () => {
    const root = tree()
    // NFS's magic number: a change made on another host makes no event on this one.
    expect(await watchDirectories(root, { statfsType: () => 0x6969 })).toBeUndefined()
    expect(await watchDirectories(join(root, 'missing'))).toBeUndefined()
  })

  it('is not made when its sync directory cannot be made or watched', async () => {
    const root = tree()
    const saved = process.env.TMPDIR
    // Made again under the temp dir asked for, which does not exist.
    removeSyncDir()
    process.env.TMPDIR = join(root, 'no-such-dir')
    try {
      expect(tmpdir()).toBe(join(root, 'no-such-dir'))
      expect(await watchDirectories(root)).toBeUndefined()
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
    }
    const refusing = (() => {
      throw Object.assign(new Error('no watches'), { code: 'ENOSPC' })
    }) as unknown as typeof watch
    expect(await watchDirectories(root, { watch: refusing })).toBeUndefined()
  })

  it('gives back what it could not watch: a missing directory, and every one past its share of the kernel limit', async () => {
    const root = tree('a', 'b', 'c')
    // A limit of 8 watches: a quarter of them, 2, are this process's.
    const watch = await watching(root, { maxUserWatches: 8 })
    const paths = ['a', 'b', 'c'].map((dir) => join(root, dir))
    expect(await watch.add([join(root, 'missing'), ...paths])).toEqual([join(root, 'missing'), paths[2]])
    // Watched already: not counted twice, not refused.
    expect(await watch.add([paths[0]!])).toEqual([])
    watch.remove([paths[0]!])
    expect(await watch.add([paths[2]!])).toEqual([])
  })

  it('stops adding once the kernel says it is out of watches', async () => {
    const root = tree('a', 'b')
    let calls = 0
    const limited = ((path: string, options: never, listener: never) => {
      // The sync directory's watch, then one more.
      if (++calls > 2) throw Object.assign(new Error('no space'), { code: 'ENOSPC' })
      return watch(path, options, listener)
    }) as unknown as typeof watch
    const w = await watching(root, { watch: limited, maxUserWatches: 1000 })
    expect(await w.add([root, join(root, 'a'), join(root, 'b')])).toEqual([join(root, 'a'), join(root, 'b')])
    // Past the kernel's limit no watch is tried again.
    expect(await w.add([join(root, 'b')])).toEqual([join(root, 'b')])
    expect(calls).toBe(3)
  })

  it('adds many directories a slice per turn of the event loop', async () => {
    const dirs = Array.from({ length: 2100 }, (_, i) => `d${i}`)
    const root = tree(...dirs)
    const watch = await watching(root)
    let turns = 0
    const ticker = setInterval(() => turns++, 0)
    const unwatched = await watch.add(dirs.map((dir) => join(root, dir)))
    clearInterval(ticker)
    expect(unwatched).toEqual([])
    writeFileSync(join(root, 'd2099/f'), '')
    expect(await changes(watch)).toEqual({ [join(root, 'd2099')]: ['f'] })
  })

  it('can no longer vouch after an event without a name, a watch that failed, or a burst that may have overflowed the queue', async () => {
    const root = tree('a')
    const unnamed = standIn()
    const one = await watching(root, { watch: unnamed.watch })
    await one.add([join(root, 'a')])
    unnamed.emit(1, null)
    expect(await one.changes()).toBeUndefined()
    const syncUnnamed = standIn()
    const oneMore = await watching(root, { watch: syncUnnamed.watch })
    syncUnnamed.emit(0, null)
    expect(await oneMore.changes()).toBeUndefined()

    const failing = standIn()
    const two = await watching(root, { watch: failing.watch })
    await two.add([join(root, 'a')])
    failing.handles[1]!.emit('error', new Error('gone'))
    expect(await two.changes()).toBeUndefined()

    const syncFailing = standIn()
    const three = await watching(root, { watch: syncFailing.watch })
    syncFailing.handles[0]!.emit('error', new Error('gone'))
    expect(await three.changes()).toBeUndefined()

    // A queue of 4: a burst of 2 events may be all the kernel kept.
    const four = await watching(root, { maxQueuedEvents: 4 })
    await four.add([join(root, 'a')])
    writeFileSync(join(root, 'a/x'), '')
    writeFileSync(join(root, 'a/y'), '')
    expect(await four.changes()).toBeUndefined()

    // The queue is the thread's: a burst in another watch's directory may have lost this one's events too.
    const other = tree('b')
    const bystander = await watching(other)
    await bystander.add([join(other, 'b')])
    const five = await watching(root, { maxQueuedEvents: 4 })
    await five.add([join(root, 'a')])
    writeFileSync(join(root, 'a/z1'), '')
    writeFileSync(join(root, 'a/z2'), '')
    expect(await five.changes()).toBeUndefined()
    expect(await bystander.changes()).toBeUndefined()
  })

  it('can no longer vouch when its sync marker cannot be written or its event does not come', async () => {
    const root = tree()
    const unwritable = await watching(root)
    rmSync(own()!, { recursive: true })
    expect(await unwritable.changes()).toBeUndefined()
    // Made again for the next watch; then a file where it was: neither the marker nor its removal can be made.
    const blocked = await watching(root)
    const dir = own()!
    rmSync(dir, { recursive: true })
    writeFileSync(dir, '')
    expect(await blocked.changes()).toBeUndefined()
    // Not a directory: the next watch makes another.
    const next = await watching(root)
    rmSync(dir)
    expect(own()).not.toBe(dir)
    expect(await next.changes()).toEqual(new Map())

    // A stand-in whose listener for the sync directory never hears of the marker.
    const deaf = ((path: string, options: never) => watch(path, options, () => undefined)) as unknown as typeof watch
    const late = await watching(root, { watch: deaf, syncTimeoutMs: 50 })
    expect(await late.changes()).toBeUndefined()
  })

  it("shares one sync directory among a process's watches and removes it at exit", async () => {
    const root = tree()
    await watching(root)
    const dir = own()
    expect(dir).toBeDefined()
    await watching(root)
    expect(own()).toBe(dir)
    removeSyncDir()
    expect(own()).toBeUndefined()
    removeSyncDir()
  })

  it("removes this user's sync directories of processes no longer running, and no other", () => {
    const make = (pid: number) => mkdtempSync(join(tmpdir(), `dsh-watch-${pid}-`))
    const ended = spawnSync('true').pid
    const dead = make(ended)
    writeFileSync(join(dead, 'sync-1-1'), '')
    const others = [make(process.ppid), make(process.pid)]
    // Another user's, of a process no longer running: not ours to remove (only root can make one to try).
    if (process.getuid!() === 0) {
      others.push(make(ended))
      chownSync(others[2]!, 65534, 65534)
    }
    removeDeadSyncDirs()
    expect(existsSync(dead)).toBe(false)
    expect(others.every((dir) => existsSync(dir))).toBe(true)
    for (const dir of others) rmSync(dir, { recursive: true })
  })

  it('is what the local file system offers', async () => {
    const root = tree()
    const watch = await createLocalFileSystem().watchDirectories!(root)
    open.push(watch!)
    expect(await watch!.changes()).toEqual(new Map())
  })
})

/** This process's sync directory, when it has one. */
function own(): string | undefined {
  const name = readdirSync(tmpdir()).find((name) => name.startsWith(`dsh-watch-${process.pid}-`))
  return name === undefined ? undefined : join(tmpdir(), name)
}
