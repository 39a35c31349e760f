import { describe, expect, it } from 'vitest'
import type { IndexAnswer, IndexQuery, SearchIndex, ToolExecContext } from '@dsh/core'
import { Config } from '../../src/config.js'
import type { SearchContext } from '../../src/engine/context.js'
import { planIndexedSearch, quietMarkOf } from '../../src/engine/index-plan.js'
import { NO_LINKS } from '../../src/engine/links.js'

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
}

describe('planIndexedSearch', () => {
  it('adds the ignore file of a candidates answer and hands the index the resolved directory, flags and links', async () => {
    let released = false
    const { ctx, queries } = context({
      kind: 'candidates',
      ignoreFile: '/i/f',
      indexedFiles: 9,
      candidates: 2,
      changed: 1,
      release: async () => void (released = true),
    })
    const planned = await planIndexedSearch(ctx, exec('/w'), search)
    expect(planned.flags).toEqual(['--ignore-file=/i/f'])
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

  it('reports a full scan and why, adding nothing to the command', async () => {
    const { ctx } = context({ kind: 'full-scan', reason: 'unreducible', detail: 'no literal' })
    const planned = await planIndexedSearch(ctx, exec('/w'), search)
    expect(planned.flags).toEqual([])
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
