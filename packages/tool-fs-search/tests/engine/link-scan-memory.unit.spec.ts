// The remembered link scan over a fake file system and fake scans: what is read again, what is trusted,
// when it walks, and what it keeps (docs/design.md#the-link-scan-is-remembered).
import { describe, expect, it } from 'vitest'
import type { FileSystem, PathStamp } from '@dsh/core'
import { LinkScanMemory, stampOf, type Scan, type ScannedDir } from '../../src/engine/link-scan-memory.js'
import { runner, UNSTOPPED } from './scan-runner.js'

const SETTLE_MS = 1000
// The fake clock: scans begin here, and a directory changed long before it is settled.
const NOW = 1_000_000
const OLD = BigInt(NOW - 10 * SETTLE_MS) * 1_000_000n
const RECENT = BigInt(NOW - SETTLE_MS / 2) * 1_000_000n

/** A directory's stamp as the fake file system reports it: `version` stands for its change time. */
const stamped = (version: number, changedNs = OLD): PathStamp => ({
  kind: 'directory',
  dev: '1',
  ino: '7',
  mtimeNs: String(changedNs),
  ctimeNs: String(changedNs + BigInt(version)),
})

/** A directory record as a scan reports it, with the same stamp. */
const dir = (name: string, version = 0, depth = 0, changedNs = OLD): ScannedDir => ({
  name,
  depth,
  stamp: stampOf(stamped(version, changedNs)),
  changedNs: changedNs + BigInt(version),
})

/** The fake file system: stamps by absolute path (a directory at version 0 unless said), kinds when following. */
function fakeFs(
  stamps: Map<string, PathStamp>,
  followed: Map<string, PathStamp['kind']>,
  real = new Map<string, string>(),
): FileSystem & {
  stampMany: NonNullable<FileSystem['stampMany']>
  calls: number
  /** Every path statted without following, in order. */
  statted: string[]
} {
  const fs = {
    calls: 0,
    statted: [] as string[],
    stat: async () => ({ kind: 'directory' as const, sizeBytes: 0, mtimeMs: 0 }),
    readLines: async () => {
      throw new Error('unused')
    },
    realpath: async (path: string) => {
      const to = real.get(path)
      if (to === 'fail') throw new Error('no such root')
      return to ?? path
    },
    stampMany: async (paths: readonly string[], { follow }: { follow: boolean }) => {
      fs.calls++
      // One push each: a test tree holds more directories than a spread passes as arguments.
      if (!follow) for (const path of paths) fs.statted.push(path)
      return paths.map((path) => (follow ? { kind: followed.get(path) ?? 'missing' } : (stamps.get(path) ?? { kind: 'missing' as const })))
    },
  }
  return fs
}

const scan = (dirs: ScannedDir[] | undefined, links: Scan['links'] = [], complete = true): Scan => ({
  links,
  workdir: '/w',
  complete,
  ...(dirs === undefined ? {} : { dirs }),
})

/** A tree `/w/r` holding `a` (with link `a/l`) and `b`, scanned whole, all settled. */
function remembered(): { memory: LinkScanMemory; stamps: Map<string, PathStamp>; followed: Map<string, PathStamp['kind']> } {
  const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
  const stamps = new Map([
    ['/w/r', stamped(0)],
    ['/w/r/a', stamped(0)],
    ['/w/r/b', stamped(0)],
  ])
  const followed = new Map<string, PathStamp['kind']>([['/w/r/a/l', 'directory']])
  return { memory, stamps, followed }
}

/** The tree's walk, its one link `a/l` with the text given. */
const walkWith = (text: string | undefined) =>
  scan([dir('.'), dir('a', 0, 1), dir('b', 0, 1)], [{ name: 'a/l', target: { type: 'd', text } }])
const coldScan = () => walkWith('/x')

describe('LinkScanMemory', () => {
  it('walks first, then answers from stats alone while nothing changed, judging where each link leads anew', async () => {
    const { memory, stamps, followed } = remembered()
    const fs = fakeFs(stamps, followed)
    const run = runner([coldScan()])
    expect(await memory.scan('k', 'r', fs, run, UNSTOPPED)).toEqual({
      links: [{ name: 'a/l', target: { type: 'd', text: '/x' } }],
      workdir: '/w',
      complete: true,
    })
    expect(memory.size).toEqual({ roots: 1, entries: 4 })
    followed.set('/w/r/a/l', 'missing')
    expect(await memory.scan('k', 'r', fs, run, UNSTOPPED)).toEqual({
      links: [{ name: 'a/l', target: { type: 'N', text: '/x' } }],
      workdir: '/w',
      complete: true,
    })
    expect(run.calls).toEqual([[['.'], 'all']])
  })

  it("stats no directory while the index's mark, taken before the last scan, is the same", async () => {
    const { memory, stamps, followed } = remembered()
    const fs = fakeFs(stamps, followed)
    const run = runner([coldScan()])
    let mark: string | undefined = 'm1'
    const quiet = async () => mark
    const all = ['/w/r', '/w/r/a', '/w/r/b']
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    // The same mark: no directory is statted, and where the link leads is judged anew.
    followed.set('/w/r/a/l', 'missing')
    expect(await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)).toEqual({
      links: [{ name: 'a/l', target: { type: 'N', text: '/x' } }],
      workdir: '/w',
      complete: true,
    })
    expect(fs.statted).toEqual([])
    // Another mark, or none: every directory is statted; the mark kept is the one taken this call.
    mark = 'm2'
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    expect(fs.statted).toEqual(all)
    mark = undefined
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    mark = 'm2'
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    expect(fs.statted).toEqual([...all, ...all, ...all])
    await memory.scan('k', 'r', fs, run, UNSTOPPED, quiet)
    expect(fs.statted).toHaveLength(9)
    expect(run.calls).toHaveLength(1)
  })

  it('remembers a directory holding more subdirectories than a spread passes as arguments', async () => {
    const names = Array.from({ length: 130_000 }, (_, i) => `d${i}`)
    const stamps = new Map([['/w/r', stamped(0)], ...names.map((name): [string, PathStamp] => [`/w/r/${name}`, stamped(0)])])
    const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
    const fs = fakeFs(stamps, new Map())
    const run = runner([scan([dir('.'), ...names.map((name) => dir(name, 0, 1))])])
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(await memory.scan('k', 'r', fs, run, UNSTOPPED)).toEqual({ links: [], workdir: '/w', complete: true })
    expect(run.calls).toHaveLength(1)
  })

  it.each([
    ['../b', 'd', 0],
    ['..', 'd', 0],
    ['../../r/./b/', 'd', 0],
    ['../c', 'N', 1],
    ['b/../../b', 'N', 1],
    [undefined, 'N', 1],
  ] as const)('takes a link to %j for a directory without a stat only when the walk proved one is there', async (text, type, stats) => {
    const { memory, stamps } = remembered()
    const fs = fakeFs(stamps, new Map())
    await memory.scan('k', 'r', fs, runner([walkWith(text)]), UNSTOPPED)
    const calls = fs.calls
    expect((await memory.scan('k', 'r', fs, runner([]), UNSTOPPED)) as Scan).toMatchObject({ links: [{ target: { type, text } }] })
    // One stamp of the directories, and one of the links when a link is left to the file system.
    expect(fs.calls - calls).toBe(1 + stats)
  })

  it.each([
    ['directory', 'd'],
    ['file', 'f'],
    ['other', 'p'],
    ['link', 'l'],
    ['missing', 'N'],
    ['loop', 'L'],
    ['unknown', '?'],
  ] as const)('spells a target that is %s as find would (%s)', async (kind, type) => {
    const { memory, stamps, followed } = remembered()
    const run = runner([coldScan()])
    await memory.scan('k', 'r', fakeFs(stamps, followed), run, UNSTOPPED)
    followed.set('/w/r/a/l', kind)
    expect((await memory.scan('k', 'r', fakeFs(stamps, followed), run, UNSTOPPED)) as Scan).toMatchObject({ links: [{ target: { type } }] })
  })

  it('reads again one level of each directory whose stamp moved, and walks a directory new since', async () => {
    const { memory, stamps, followed } = remembered()
    const fs = fakeFs(stamps, followed)
    const run = runner([
      coldScan(),
      // a changed: it now holds a new directory n and a second link.
      scan(
        [dir('a', 1), dir('a/n', 0, 1)],
        [
          { name: 'a/l', target: { type: 'd', text: '../b' } },
          { name: 'a/k', target: { type: 'f', text: 'x' } },
        ],
      ),
      scan([dir('a/n'), dir('a/n/m', 0, 1)], [{ name: 'a/n/m/z', target: { type: 'L', text: 'z' } }]),
    ])
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    stamps.set('/w/r/a', stamped(1))
    const warm = (await memory.scan('k', 'r', fs, run, UNSTOPPED)) as Scan
    expect(run.calls.slice(1)).toEqual([
      [['a'], 'one'],
      [['a/n'], 'all'],
    ])
    expect(warm.links).toEqual([
      { name: 'a/k', target: { type: 'f', text: 'x' } },
      { name: 'a/l', target: { type: 'd', text: '../b' } },
      { name: 'a/n/m/z', target: { type: 'L', text: 'z' } },
    ])
    // Each directory read this time is remembered; the next call reads none of them.
    stamps.set('/w/r/a/n', stamped(0))
    stamps.set('/w/r/a/n/m', stamped(0))
    expect(((await memory.scan('k', 'r', fs, run, UNSTOPPED)) as Scan).links.map((link) => link.name)).toEqual(['a/k', 'a/l', 'a/n/m/z'])
    expect(run.calls).toHaveLength(3)
  })

  it('reads again a directory changed too close to the scan that read it, though its stamp is the same', async () => {
    const { memory, stamps, followed } = remembered()
    stamps.set('/w/r/b', stamped(0, RECENT))
    const run = runner([
      scan([dir('.'), dir('a', 0, 1), dir('b', 0, 1, RECENT)]),
      scan([dir('b', 0, 0, RECENT)]),
      scan([dir('b', 0, 0, RECENT)]),
    ])
    const fs = fakeFs(stamps, followed)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    expect(run.calls.slice(1)).toEqual([
      [['b'], 'one'],
      [['b'], 'one'],
    ])
  })

  it('forgets a directory that is gone, and everything below one that became a link', async () => {
    const { memory, stamps, followed } = remembered()
    const run = runner([
      scan([dir('.'), dir('a', 0, 1), dir('b', 0, 1), dir('b/c', 0, 2)], [{ name: 'b/c/l', target: { type: 'd', text: '/' } }]),
      // The root changed: a is gone, b is a link now (its old path b/c still stats, through it).
      scan([dir('.', 1)], [{ name: 'b', target: { type: 'd', text: 'elsewhere' } }]),
    ])
    stamps.set('/w/r/b/c', stamped(0))
    const fs = fakeFs(stamps, followed)
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    stamps.set('/w/r', stamped(1))
    stamps.delete('/w/r/a')
    stamps.set('/w/r/b', { kind: 'link' })
    expect(((await memory.scan('k', 'r', fs, run, UNSTOPPED)) as Scan).links).toEqual([
      { name: 'b', target: { type: 'd', text: 'elsewhere' } },
    ])
    expect(memory.size).toEqual({ roots: 1, entries: 2 })
  })

  it.each([
    ['the root resolves elsewhere now', (real: Map<string, string>) => real.set('/w/r', '/w/other'), []],
    ['the root no longer resolves', (real: Map<string, string>) => real.set('/w/r', 'fail'), []],
    ['the root is no directory now', (_: Map<string, string>, stamps: Map<string, PathStamp>) => stamps.set('/w/r', { kind: 'file' }), []],
    ['reading a level fails', (_: Map<string, string>, stamps: Map<string, PathStamp>) => stamps.set('/w/r/a', stamped(1)), ['no find']],
    [
      'a level is not read whole',
      (_: Map<string, string>, stamps: Map<string, PathStamp>) => stamps.set('/w/r/a', stamped(1)),
      [scan([dir('a', 1)], [], false)],
    ],
    [
      'a level comes back without its directories',
      (_: Map<string, string>, stamps: Map<string, PathStamp>) => stamps.set('/w/r/a', stamped(1)),
      [scan(undefined)],
    ],
    [
      'a directory read again is a link now',
      (_: Map<string, string>, stamps: Map<string, PathStamp>) => stamps.set('/w/r/a', stamped(1)),
      [scan([], [{ name: 'a', target: { type: 'd', text: 'b' } }])],
    ],
    [
      'walking a new directory fails',
      (_: Map<string, string>, stamps: Map<string, PathStamp>) => stamps.set('/w/r/a', stamped(1)),
      [scan([dir('a', 1), dir('a/n', 0, 1)]), 'no find'],
    ],
  ] as const)('walks the whole tree again when %s', async (_case, change, answers) => {
    const { memory, stamps, followed } = remembered()
    const real = new Map<string, string>()
    const fs = fakeFs(stamps, followed, real)
    const run = runner([coldScan(), ...answers, coldScan()])
    await memory.scan('k', 'r', fs, run, UNSTOPPED)
    change(real, stamps)
    expect(((await memory.scan('k', 'r', fs, run, UNSTOPPED)) as Scan).links).toHaveLength(1)
    expect(run.calls.at(-1)).toEqual([['.'], 'all'])
  })

  it('remembers no walk that failed, missed a directory, listed none, or whose root does not resolve', async () => {
    const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
    const fs = fakeFs(new Map(), new Map(), new Map([['/w/gone', 'fail']]))
    expect(await memory.scan('k', 'r', fs, runner(['no find']), UNSTOPPED)).toBe('no find')
    const incomplete = scan([dir('.')], [], false)
    expect(await memory.scan('k', 'r', fs, runner([incomplete]), UNSTOPPED)).toBe(incomplete)
    const names = scan(undefined, [{ name: 'x' }])
    expect(await memory.scan('k', 'r', fs, runner([names]), UNSTOPPED)).toBe(names)
    await memory.scan('k', 'gone', fs, runner([scan([dir('.')])]), UNSTOPPED)
    await memory.scan('k', 'r', fs, runner([scan([dir('a')])]), UNSTOPPED)
    expect(memory.size).toEqual({ roots: 0, entries: 0 })
  })

  it('keeps at most 16 roots and 200,000 entries, forgetting the least recently searched first', async () => {
    const memory = new LinkScanMemory(SETTLE_MS, () => NOW)
    const fs = fakeFs(new Map([['/w/r', stamped(0)]]), new Map())
    for (let i = 0; i < 18; i++) await memory.scan(`k${i}`, 'r', fs, runner([scan([dir('.')])]), UNSTOPPED)
    expect(memory.size).toEqual({ roots: 16, entries: 16 })
    // k2 searched again: the oldest kept is k3 now.
    await memory.scan('k2', 'r', fs, runner([]), UNSTOPPED)
    const big = (count: number) => scan([dir('.'), ...Array.from({ length: count }, (_, i) => dir(`d${i}`, 0, 1))])
    await memory.scan('big', 'r', fs, runner([big(199_990)]), UNSTOPPED)
    expect(memory.size.roots).toBeLessThan(16)
    expect(memory.size.entries).toBeLessThanOrEqual(200_000)
    await memory.scan('k2', 'r', fs, runner([]), UNSTOPPED)
    await memory.scan('huge', 'r', fs, runner([big(200_000)]), UNSTOPPED)
    expect(memory.size.entries).toBeLessThanOrEqual(200_000)
    const before = memory.size
    await memory.scan('huge', 'r', fs, runner([big(200_000)]), UNSTOPPED)
    expect(memory.size).toEqual(before)
  })

  describe('a walk under way', () => {
    /** A runner whose first walk answers only when `finish` is called (or rejects on `fail`); later calls as `runner` answers them. */
    const held = (first: Scan | string, later: Array<Scan | string> = []) => {
      const rest = runner(later)
      const calls: Array<readonly string[]> = []
      let finish!: () => void
      let fail!: (error: Error) => void
      const answer = new Promise<Scan | string>((resolve, reject) => {
        finish = () => resolve(first)
        fail = reject
      })
      const run = (starts: readonly string[], depth: 'all' | 'one') => {
        calls.push(starts)
        return calls.length > 1 ? rest(starts, depth) : answer
      }
      return { run, calls, finish, fail }
    }

    it('is waited for and then checked as a remembered scan, so the tree is walked once and a change during it is seen', async () => {
      const { memory, stamps, followed } = remembered()
      const fs = fakeFs(stamps, followed)
      // a changes while the walk runs: the call that waited reads it again.
      const walk = held(coldScan(), [scan([dir('a', 1)], [{ name: 'a/l', target: { type: 'd', text: '/y' } }])])
      const first = memory.scan('k', 'r', fs, walk.run, UNSTOPPED)
      const waiting = memory.scan('k', 'r', fs, walk.run, UNSTOPPED)
      const alsoWaiting = memory.scan('k', 'r', fs, runner([]), UNSTOPPED)
      await Promise.resolve()
      expect(walk.calls).toEqual([['.']])
      stamps.set('/w/r/a', stamped(1))
      walk.finish()
      expect(((await first) as Scan).links).toEqual([{ name: 'a/l', target: { type: 'd', text: '/x' } }])
      expect(((await waiting) as Scan).links).toEqual([{ name: 'a/l', target: { type: 'd', text: '/y' } }])
      expect(walk.calls).toEqual([['.'], ['a']])
      // The third call waited too, and found the scan the second kept: it stats, and walks nothing.
      expect(((await alsoWaiting) as Scan).links).toEqual([{ name: 'a/l', target: { type: 'd', text: '/y' } }])
      expect(fs.statted.filter((path) => path === '/w/r')).toHaveLength(2)
    })

    it('that fails leaves the waiting call to walk its own', async () => {
      const { memory, stamps, followed } = remembered()
      const walk = held('listing them failed (find exited 2)', [coldScan()])
      const first = memory.scan('k', 'r', fakeFs(stamps, followed), walk.run, UNSTOPPED)
      const waiting = memory.scan('k', 'r', fakeFs(stamps, followed), walk.run, UNSTOPPED)
      walk.finish()
      expect(await first).toBe('listing them failed (find exited 2)')
      expect(((await waiting) as Scan).links).toHaveLength(1)
      expect(walk.calls).toEqual([['.'], ['.']])
      expect(memory.size.roots).toBe(1)
    })

    it('that rejects leaves the waiting call to walk its own, neither reusing it nor hanging', async () => {
      const { memory, stamps, followed } = remembered()
      const fs = fakeFs(stamps, followed)
      const walk = held(coldScan(), [coldScan()])
      const first = memory.scan('k', 'r', fs, walk.run, UNSTOPPED)
      const waiting = memory.scan('k', 'r', fs, walk.run, UNSTOPPED)
      walk.fail(new Error('find was killed'))
      await expect(first).rejects.toThrow('find was killed')
      expect(((await waiting) as Scan).links).toEqual([{ name: 'a/l', target: { type: 'd', text: '/x' } }])
      expect(walk.calls).toEqual([['.'], ['.']])
      expect(memory.size.roots).toBe(1)
    })

    it("is waited for only until the waiting call's own signal aborts", async () => {
      const { memory, stamps, followed } = remembered()
      const fs = fakeFs(stamps, followed)
      const walk = held(coldScan(), ['stopped', 'stopped'])
      const first = memory.scan('k', 'r', fs, walk.run, UNSTOPPED)
      const stop = new AbortController()
      const waiting = memory.scan('k', 'r', fs, walk.run, stop.signal)
      stop.abort()
      // Its own scan runs (and, with its signal aborted, stops at once), the walk under way untouched.
      expect(await waiting).toBe('stopped')
      expect(await memory.scan('k', 'r', fs, walk.run, AbortSignal.abort())).toBe('stopped')
      walk.finish()
      expect(((await first) as Scan).links).toHaveLength(1)
      expect(walk.calls).toEqual([['.'], ['.'], ['.']])
      expect(memory.size.roots).toBe(1)
    })
  })
})
