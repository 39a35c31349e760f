import { describe, expect, it } from 'vitest'
import type { IndexAnswer, IndexQuery, IndexTimesAnswer, SearchIndex, ToolExecContext } from '@dsh/core'
import { Config } from '../../src/config.js'
import type { ListingContext, SearchContext } from '../../src/engine/context.js'
import type { MtimeLister } from '../../src/engine/glob/command.js'
import { planIndexedListing, planIndexedSearch, quietMarkOf } from '../../src/engine/index-plan.js'
import { NO_LINKS } from '../../src/engine/links.js'
import { NESTED_REPOSITORIES_MAX, RgFileLists } from '../../src/engine/rg-file-lists.js'

function context(answer: IndexAnswer, index: 'auto' | 'off' = 'auto'): { ctx: SearchContext; queries: IndexQuery[] } {
  const queries: IndexQuery[] = []
  const searchIndex: SearchIndex = {
    plan: (query) => {
      queries.push(query)
      return Promise.resolve(answer)
    },
  }
  const ctx = {
    config: Config.parse({ index }),
    searchIndex: () => searchIndex,
  } as unknown as SearchContext
  return { ctx, queries }
}

const signal = new AbortController().signal
const exec = (cwd?: string) =>
  ({ signal, ...(cwd === undefined ? {} : { agent: { session: { header: { id: 's', cwd } } } }) }) as unknown as ToolExecContext
const search = {
  target: 'src',
  pattern: 'alpha',
  caseInsensitive: true,
  multiline: false,
  links: { ...NO_LINKS, followed: [{ path: 'l', directory: true }] },
  fileList: 'LIST',
}

describe('planIndexedSearch', () => {
  it('adds the ignore file of a candidates answer and hands the index the resolved directory, flags and links', async () => {
    let released = false
    const { ctx, queries } = context({
      kind: 'candidates',
      ignoreFile: '/i/f',
      namedFile: undefined,
      named: 0,
      indexedFiles: 9,
      candidates: 2,
      changed: 1,
      release: async () => void (released = true),
    })
    const planned = await planIndexedSearch(ctx, exec('/w'), search)
    expect(planned.route).toEqual({ ignoreFile: '/i/f' })
    expect(planned.use).toEqual({ used: true, indexedFiles: 9, candidates: 2, changed: 1 })
    expect(queries[0]).toMatchObject({
      dir: '/w/src',
      pattern: 'alpha',
      caseInsensitive: true,
      multiline: false,
      followedLinks: [{ path: 'l', directory: true }],
    })
    expect(queries[0]!.signal).toBe(signal)
    await planned.release()
    expect(released).toBe(true)
  })

  it('gives the named file and no ignore file when a candidates answer leaves nothing to walk', async () => {
    const answer: IndexAnswer = {
      kind: 'candidates',
      ignoreFile: undefined,
      namedFile: '/i/n',
      named: 2,
      indexedFiles: 9,
      candidates: 2,
      changed: 0,
      release: () => Promise.resolve(),
    }
    const planned = await planIndexedSearch(context(answer).ctx, exec('/w'), search)
    expect(planned.route).toEqual({ namedFile: '/i/n' })
    expect(planned.use).toEqual({ used: true, indexedFiles: 9, candidates: 2, changed: 0, named: 2 })
  })

  it('reports a full scan and why, adding nothing to the command', async () => {
    const { ctx } = context({ kind: 'full-scan', reason: 'unreducible', detail: 'no literal' })
    const planned = await planIndexedSearch(ctx, exec('/w'), search)
    expect(planned.route).toEqual({})
    expect(planned.use).toEqual({ used: false, reason: 'unreducible', detail: 'no literal' })
    await planned.release()
  })

  it('does not ask the index when it is off, and cannot place a relative path without a working directory', async () => {
    const off = context({ kind: 'full-scan', reason: 'no-index', detail: '' }, 'off')
    expect((await planIndexedSearch(off.ctx, exec('/w'), search)).use).toBeUndefined()
    expect(off.queries).toEqual([])
    const noCwd = context({ kind: 'full-scan', reason: 'no-index', detail: '' })
    expect((await planIndexedSearch(noCwd.ctx, exec(), search)).use).toBeUndefined()
    expect(noCwd.queries).toEqual([])
    expect((await planIndexedSearch(noCwd.ctx, exec(), { ...search, target: '/abs' })).use).toBeUndefined()
    expect(noCwd.queries[0]!.dir).toBe('/abs')
  })
})

describe('planIndexedSearch with the lists of rg walks', () => {
  const CANDIDATES: IndexAnswer = {
    kind: 'candidates',
    ignoreFile: undefined,
    namedFile: '/i/named',
    named: 3,
    indexedFiles: 9,
    candidates: 3,
    changed: 0,
    release: async () => {},
  }

  /** A context whose index gives `marks` in turn and whose executor prints `printed` with `exitCode`. */
  function withLists(printed: string, { exitCode = 0, stop = 'exit', marks = ['m', 'm', 'm', 'm'] as Array<string | undefined> } = {}) {
    const { ctx, queries } = context(CANDIDATES)
    const index = (ctx.searchIndex as () => SearchIndex)()
    const asked = { marks: 0 }
    index.walkMark = async () => {
      asked.marks++
      return marks.shift()
    }
    const specs: Array<Record<string, unknown>> = []
    const bash = {
      resolve: async (request: Record<string, unknown>) => ({ ...request, workdir: request['workdir'] ?? '/home' }),
      run: async (spec: { stdoutSink: (chunk: Uint8Array) => void } & Record<string, unknown>) => {
        specs.push(spec)
        spec.stdoutSink(Buffer.from(printed, 'latin1'))
        return {
          exitCode,
          stop,
          signal: null,
          durationMs: 1,
          stdout: { text: '', truncated: false, totalBytes: 0 },
          stderr: { text: '', truncated: false, totalBytes: 0 },
        }
      },
    }
    const lists = new RgFileLists()
    const fs = {
      stampMany: async (paths: readonly string[]) => paths.map(() => ({ kind: 'missing' })),
      readLines: () => Promise.reject(new Error('no such file')),
    }
    const full = { ...ctx, bash, fs: () => fs, rgFileLists: () => lists } as unknown as SearchContext
    return { ctx: full, queries, lists, specs, asked }
  }

  it('names nothing at first, walks after the search, and names from that walk while the tree stays quiet', async () => {
    const { ctx, queries, lists, specs, asked } = withLists('D\0./a.txt\0./sub/b.txt\0')
    const first = await planIndexedSearch(ctx, exec('/w'), search)
    expect(queries[0]!.walked).toBeUndefined()
    // With no list kept, the search asks for no mark to check one against.
    expect(asked.marks).toBe(0)
    expect(first.route).toEqual({ namedFile: '/i/named' })
    await first.release()
    await lists.settled()
    expect(specs[0]).toMatchObject({ command: 'LIST', workdir: '/w' })
    await planIndexedSearch(ctx, exec('/w'), search)
    const walked = queries[1]!.walked!
    expect(walked('sub/b.txt')).toBe('./sub/b.txt')
    expect(walked('c.txt')).toBeUndefined()
  })

  it('keeps no walk that failed, listed a file target, or saw the tree change', async () => {
    for (const printed of ['F\0./a\0', 'D\0./a\0']) {
      for (const [exitCode, stop, marks] of [
        [0, 'exit', printed.startsWith('F') ? ['m', 'm', 'm', 'm'] : ['m', 'other', 'm', 'm']],
        [9, 'exit', ['m', 'm', 'm', 'm']],
        [0, 'timeout', ['m', 'm', 'm', 'm']],
      ] as const) {
        const { ctx, queries, lists } = withLists(printed, { exitCode, stop, marks: [...marks] })
        await (await planIndexedSearch(ctx, exec('/w'), search)).release()
        await lists.settled()
        await planIndexedSearch(ctx, exec('/w'), search)
        expect(queries[1]!.walked).toBeUndefined()
      }
    }
  })

  it('names nothing from a kept list once the tree has no walk mark', async () => {
    const { ctx, queries, lists, asked } = withLists('D\0./a\0', { marks: ['m', 'm', undefined] })
    await (await planIndexedSearch(ctx, exec('/w'), search)).release()
    await lists.settled()
    expect(lists.holds('/w/src\0LIST')).toBe(true)
    await planIndexedSearch(ctx, exec('/w'), search)
    expect(asked.marks).toBe(3)
    expect(queries[1]!.walked).toBeUndefined()
  })

  it('keeps with a list what the repositories nested in it exclude, or none when that cannot be told', async () => {
    const now = BigInt(Date.now()) * 1_000_000n
    /** A file system where each directory in `repos` holds a `.git` directory, whose exclude file changed at `excluded`. */
    const withRepos = (repos: readonly string[], excluded: bigint) => ({
      readLines: () => Promise.reject(new Error('no such file')),
      stampMany: async (paths: readonly string[]) =>
        paths.map((p) =>
          repos.some((r) => p === `/w/src/${r}/.git`)
            ? { kind: 'directory', dev: '1', ino: '2', mtimeNs: String(now), ctimeNs: String(now) }
            : p.endsWith('/.git/info/exclude') && repos.some((r) => p.startsWith(`/w/src/${r}/`))
              ? { kind: 'file', dev: '1', ino: '3', mtimeNs: String(excluded), ctimeNs: String(excluded) }
              : { kind: 'missing' },
        ),
    })
    const kept = async (printed: string, fs: object) => {
      const { ctx, queries, lists } = withLists(printed)
      const full = { ...ctx, fs: () => fs } as SearchContext
      await (await planIndexedSearch(full, exec('/w'), search)).release()
      await lists.settled()
      await planIndexedSearch(full, exec('/w'), search)
      return { walked: queries[1]!.walked, nested: lists.nestedOf('/w/src\0LIST') }
    }
    // A repository at sub, its exclude file written long before the walk: kept, and its stamps with it.
    const repo = await kept('D\0./sub/deep/a\0./b\0', withRepos(['sub'], 1n))
    expect(repo.walked?.('sub/deep/a')).toBe('./sub/deep/a')
    expect(repo.nested).toEqual(['sub'])
    // Written as the walk began: the list may or may not hold what it excludes.
    expect((await kept('D\0./sub/a\0', withRepos(['sub'], now))).walked).toBeUndefined()
    // A directory name that is not UTF-8 cannot be stamped as it is.
    expect((await kept('D\0./\xff/a\0', withRepos([], 1n))).walked).toBeUndefined()
    // More repositories than a search should stamp each time.
    const many = Array.from({ length: NESTED_REPOSITORIES_MAX + 1 }, (_, i) => `r${i}`)
    const printed = `D\0${many.map((r) => `./${r}/a\0`).join('')}`
    expect((await kept(printed, withRepos(many, 1n))).walked).toBeUndefined()
    expect((await kept(printed, withRepos(many.slice(1), 1n))).nested).toHaveLength(NESTED_REPOSITORIES_MAX)
  })

  it('names nothing without stamps from the file system seam', async () => {
    const { ctx, queries, lists, specs } = withLists('D\0./a\0')
    const bare = { ...ctx, fs: () => ({}) } as SearchContext
    await (await planIndexedSearch(bare, exec('/w'), search)).release()
    await lists.settled()
    await planIndexedSearch(bare, exec('/w'), search)
    expect(specs).toEqual([])
    expect(queries[1]!.walked).toBeUndefined()
  })

  it('asks for no walk when the tree has no walk mark, and runs one from the executor’s own directory without a session cwd', async () => {
    const quiet = withLists('D\0./a\0', { marks: [undefined, undefined] })
    await (await planIndexedSearch(quiet.ctx, exec('/w'), search)).release()
    await quiet.lists.settled()
    expect(quiet.specs).toEqual([])
    const absolute = withLists('D\0./a\0')
    await (await planIndexedSearch(absolute.ctx, exec(), { ...search, target: '/abs' })).release()
    await absolute.lists.settled()
    expect(absolute.specs[0]!['workdir']).toBe('/home')
  })
})

describe('quietMarkOf', () => {
  it("asks the index for the searched directory's mark, when it consults one that gives marks", async () => {
    const { ctx } = context({ kind: 'full-scan', reason: 'no-index', detail: '' })
    expect(quietMarkOf(ctx, exec('/w'), 'src')).toBeUndefined()
    const asked: Array<{ dir: string; signal: AbortSignal }> = []
    const index = (ctx.searchIndex as () => SearchIndex)()
    index.unchangedMark = async (query) => {
      asked.push(query)
      return 'm'
    }
    expect(await quietMarkOf(ctx, exec('/w'), 'src')!()).toBe('m')
    expect(asked).toEqual([{ dir: '/w/src', signal }])
    expect(quietMarkOf(ctx, exec(), 'src')).toBeUndefined()
    expect(await quietMarkOf(ctx, exec(), '/abs')!()).toBe('m')
    expect(asked[1]!.dir).toBe('/abs')
    const off = context({ kind: 'full-scan', reason: 'no-index', detail: '' }, 'off')
    ;(off.ctx.searchIndex as () => SearchIndex)().unchangedMark = index.unchangedMark
    expect(quietMarkOf(off.ctx, exec('/w'), 'src')).toBeUndefined()
  })
})

describe('planIndexedListing', () => {
  const FIND: MtimeLister = { helper: 'find', find: '/usr/bin/find' }
  function listing(answer: IndexTimesAnswer | undefined, lister: MtimeLister = FIND, index: 'auto' | 'off' = 'auto') {
    const asked: Array<{ dir: string; signal: AbortSignal }> = []
    const searchIndex: SearchIndex = {
      plan: () => Promise.reject(new Error('not asked')),
      ...(answer === undefined
        ? {}
        : {
            times: (query) => {
              asked.push(query)
              return Promise.resolve(answer)
            },
          }),
    }
    const ctx = { config: Config.parse({ index }), lister, searchIndex: () => searchIndex } as unknown as ListingContext
    return { ctx, asked }
  }
  const timeOf = () => 'read' as const
  const times: IndexTimesAnswer = { kind: 'times', indexedFiles: 9, changed: 2, timeOf }
  const target = { target: 'src', links: NO_LINKS }

  it("gives the index's times for the resolved directory, and counts the ones it recorded", async () => {
    const { ctx, asked } = listing(times)
    const planned = await planIndexedListing(ctx, exec('/w'), target)
    expect(planned.timeOf).toBe(timeOf)
    expect(planned.use(7)).toEqual({ used: true, indexedFiles: 9, candidates: 7, changed: 2 })
    expect(asked).toEqual([{ dir: '/w/src', signal }])
  })

  it('says why it read every time, and says nothing when no index covers the tree', async () => {
    const fallback = listing({ kind: 'full-scan', reason: 'freshness', detail: 'no watcher' })
    const planned = await planIndexedListing(fallback.ctx, exec('/w'), target)
    expect(planned.timeOf).toBeUndefined()
    expect(planned.use(0)).toEqual({ used: false, reason: 'freshness', detail: 'no watcher' })
    const none = listing({ kind: 'full-scan', reason: 'no-index', detail: '' })
    expect((await planIndexedListing(none.ctx, exec('/w'), target)).use(0)).toBeUndefined()
  })

  it('does not ask when off, without times, without a place, through links, or with a helper that prints times otherwise', async () => {
    const cases = [
      listing(times, FIND, 'off'),
      listing(undefined),
      listing(times, { helper: 'stat', xargs: '/x', stat: '/s' }),
      listing(times, { helper: 'stat-lines', xargs: '/x', stat: '/s', sh: '/sh', formatOption: '-c' }),
    ]
    for (const { ctx } of cases) expect((await planIndexedListing(ctx, exec('/w'), target)).timeOf).toBeUndefined()
    const { ctx, asked } = listing(times, { helper: 'finds', find: '/f', perl: '/p', count: 2 })
    expect((await planIndexedListing(ctx, exec(), target)).timeOf).toBeUndefined()
    const links = { ...NO_LINKS, followed: [{ path: 'l', directory: true }] }
    expect((await planIndexedListing(ctx, exec('/w'), { target: 'src', links })).timeOf).toBeUndefined()
    expect(asked).toEqual([])
    expect((await planIndexedListing(ctx, exec('/w'), target)).timeOf).toBe(timeOf)
  })
})
