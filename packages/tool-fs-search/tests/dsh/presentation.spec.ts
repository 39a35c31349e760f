import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ToolResult } from '@dsh/core'
import {
  capMetaBytes,
  presentGlobResult,
  presentGrepResult,
  searchViewFromMeta,
  type SearchMatchesMeta,
  type SearchPathsMeta,
} from '../../src/dsh/presentation.js'
import { rgLines, statRecords } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { callTool, loadRealHarness, pageOf, scratchDirs, writeCapsTree, writeTree } from '../real-harness.js'

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

describe('capMetaBytes', () => {
  const paths = (...list: string[]): SearchPathsMeta => ({
    shape: 'paths',
    paths: list,
    truncated: false,
    total: list.length,
    incomplete: false,
  })
  const file = (path: string, line: string) => ({ path, matches: [{ lineNumber: 1, line }] })

  it('returns a meta that fits unchanged', () => {
    const meta = paths('a', 'b')
    expect(capMetaBytes(meta, bytes(meta))).toBe(meta)
  })

  it('drops trailing paths until the serialized meta fits, and marks it truncated', () => {
    const meta = paths('aaaa', 'bbbb', 'cccc', 'dddd')
    const capped = capMetaBytes(meta, bytes(meta) - 1)
    expect(capped).toEqual({ shape: 'paths', paths: ['aaaa', 'bbbb', 'cccc'], truncated: true, total: 4, incomplete: false })
    expect(bytes(capped)).toBeLessThan(bytes(meta))
  })

  it('drops trailing file groups whole', () => {
    const meta: SearchMatchesMeta = {
      shape: 'matches',
      files: [file('a', 'x'), file('b', 'y'.repeat(100))],
      truncated: false,
      total: 2,
      incomplete: false,
    }
    const capped = capMetaBytes(meta, 200)
    expect(capped).toEqual({ shape: 'matches', files: [file('a', 'x')], truncated: true, total: 2, incomplete: false })
    expect(bytes(capped)).toBeLessThanOrEqual(200)
  })

  it('keeps a single item too large to fit alone rather than an empty card', () => {
    const huge = file('big.min.js', 'z'.repeat(10_000))
    const meta: SearchMatchesMeta = { shape: 'matches', files: [huge, file('b', 'y')], truncated: false, total: 2, incomplete: false }
    expect(capMetaBytes(meta, 100)).toEqual({ shape: 'matches', files: [huge], truncated: true, total: 2, incomplete: false })
    // Alone it is all there is: nothing was dropped, so it is not marked truncated.
    expect(capMetaBytes(paths('p'.repeat(500)), 100)).toEqual(paths('p'.repeat(500)))
  })

  it('keeps an already truncated meta truncated', () => {
    const meta = { ...paths('q'.repeat(300)), truncated: true, total: 9, incomplete: false }
    expect(capMetaBytes(meta, 50)).toEqual(meta)
  })

  it('never passes the budget by the byte "false" costs over "true"', () => {
    // Fits exactly with `truncated: false`; one more path would not.
    const meta = paths('aa', 'bb', 'cc')
    const budget = bytes(paths('aa', 'bb'))
    const capped = capMetaBytes(meta, budget)
    expect(capped.paths).toEqual(['aa', 'bb'])
    expect(bytes(capped)).toBeLessThanOrEqual(budget)
  })

  it('counts UTF-8 bytes, not characters', () => {
    const meta = paths('é'.repeat(20), 'b')
    const capped = capMetaBytes(meta, JSON.stringify(meta).length)
    expect(capped.paths).toEqual(['é'.repeat(20)])
  })
})

describe('searchViewFromMeta', () => {
  const matches = {
    shape: 'matches',
    files: [{ path: 'a.ts', matches: [{ lineNumber: 3, line: '<b>x</b>' }] }],
    truncated: true,
    total: 9,
    incomplete: false,
  }

  it('reads both shapes back as views, tagged as the search card', () => {
    expect(searchViewFromMeta(matches)).toEqual({ card: 'search', ...matches })
    expect(searchViewFromMeta({ shape: 'paths', paths: ['a', 'b'], truncated: false, total: 2, incomplete: false })).toEqual({
      card: 'search',
      shape: 'paths',
      paths: ['a', 'b'],
      truncated: false,
      total: 2,
      incomplete: false,
    })
  })

  it('reads a meta logged before `incomplete` existed as complete, and carries it when set', () => {
    const { incomplete: _absent, ...old } = matches
    expect(searchViewFromMeta(old)).toEqual({ card: 'search', ...matches, incomplete: false })
    expect(searchViewFromMeta({ ...matches, incomplete: true })).toEqual({ card: 'search', ...matches, incomplete: true })
  })

  it('accepts zero results as a valid empty card', () => {
    expect(searchViewFromMeta({ shape: 'matches', files: [], truncated: false, total: 0, incomplete: false })).toMatchObject({ files: [] })
    expect(searchViewFromMeta({ shape: 'paths', paths: [], truncated: false, total: 0, incomplete: false })).toMatchObject({ paths: [] })
  })

  it('copies only the fields a view has', () => {
    const view = searchViewFromMeta({ ...matches, content: 'the text', files: [{ ...matches.files[0], extra: 1 }] })
    expect(view).toEqual({ card: 'search', ...matches })
  })

  it('keeps a line number too long for a safe integer, as the page reads its digits', () => {
    const meta = { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 1e20, line: 'x' }] }] }
    expect(searchViewFromMeta(meta)).toMatchObject({ files: [{ matches: [{ lineNumber: 1e20 }] }] })
  })

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'matches'],
    ['an array', [matches]],
    ['missing truncated', { ...matches, truncated: undefined }],
    ['a string truncated', { ...matches, truncated: 'true' }],
    ['a string incomplete', { ...matches, incomplete: 'yes' }],
    ['missing total', { ...matches, total: undefined }],
    ['a string total', { ...matches, total: '9' }],
    ['a negative total', { ...matches, total: -1 }],
    ['a fractional total', { ...matches, total: 1.5 }],
    ['an unknown shape', { ...matches, shape: 'tree' }],
    ['a kind in place of shape', { ...matches, shape: undefined, kind: 'matches' }],
    ['files not an array', { ...matches, files: {} }],
    ['a file that is not an object', { ...matches, files: ['a.ts'] }],
    ['a file without a path', { ...matches, files: [{ matches: [] }] }],
    ['a file whose matches are not an array', { ...matches, files: [{ path: 'a', matches: 'x' }] }],
    ['a match that is not an object', { ...matches, files: [{ path: 'a', matches: [3] }] }],
    ['a match with line number 0', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 0, line: 'x' }] }] }],
    ['a match with a string line number', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: '3', line: 'x' }] }] }],
    ['a match without its line', { ...matches, files: [{ path: 'a', matches: [{ lineNumber: 3 }] }] }],
    ['a paths card without paths', { shape: 'paths', truncated: false, total: 0, incomplete: false }],
    ['a non-string path', { shape: 'paths', paths: ['a', 7], truncated: false, total: 2, incomplete: false }],
    ['a paths card carrying files', { shape: 'paths', files: [], truncated: false, total: 0, incomplete: false }],
  ])('is undefined for %s', (_name, meta) => {
    expect(searchViewFromMeta(meta)).toBeUndefined()
  })
})

describe('presentGrepResult and presentGlobResult', () => {
  const grepMeta: SearchMatchesMeta = { shape: 'matches', files: [], truncated: false, total: 0, incomplete: false }
  const globMeta: SearchPathsMeta = { shape: 'paths', paths: ['a'], truncated: false, total: 1, incomplete: false }
  const ok = (meta?: SearchMatchesMeta | SearchPathsMeta | string): ToolResult => ({
    isError: false,
    content: 'text',
    ...(meta === undefined ? {} : { meta }),
  })

  it('builds each tool its own card, with no result text', () => {
    expect(presentGrepResult(ok(grepMeta))).toEqual({ card: 'search', ...grepMeta })
    expect(presentGlobResult(ok(globMeta))).toEqual({ card: 'search', ...globMeta })
    expect(presentGlobResult(ok(globMeta))).not.toHaveProperty('content')
  })

  it('falls back for a failure, absent meta, the other shape, and malformed meta', () => {
    const failed: ToolResult = { isError: true, content: 'bad regex', errorCode: 'SEARCH_INVALID_PATTERN' }
    for (const present of [presentGrepResult, presentGlobResult]) {
      expect(present(failed)).toBeUndefined()
      expect(present(ok())).toBeUndefined()
      expect(present(ok('a string'))).toBeUndefined()
    }
    expect(presentGrepResult(ok(globMeta))).toBeUndefined()
    expect(presentGlobResult(ok(grepMeta))).toBeUndefined()
  })
})

describe('the search card through the registry', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('tree')
  writeCapsTree(tree)

  it('a capped grep returns the card meta, and presentResult builds the view from it', async () => {
    const harness = await loadRealHarness({ spillRoot, search: { grepMaxMatches: 4, grepMaxMatchesPerFile: 2 } })
    const args = { pattern: 'hit|needle' }
    const result = await callTool(harness, 'grep', args, tree)
    expect(result).toMatchObject({ isError: false, meta: { shape: 'matches', truncated: true, total: 43, incomplete: false } })
    const view = harness.registry.present('grep', args, result)
    expect(view).toEqual({
      card: 'search',
      shape: 'matches',
      files: [
        {
          path: 'big/many.log',
          matches: [
            { lineNumber: 1, line: 'hit 0' },
            { lineNumber: 2, line: 'hit 1' },
          ],
        },
        { path: 'big/one.log', matches: [{ lineNumber: 1, line: 'hit' }] },
        { path: 'big/two.log', matches: [{ lineNumber: 1, line: 'hit' }] },
      ],
      truncated: true,
      total: 43,
      incomplete: false,
    })
    expect(pageOf(result.content)).toBe(
      'Found 4 of 43 matches\n\nbig/many.log\nLine 1: hit 0\nLine 2: hit 1\n\nbig/one.log\nLine 1: hit\n\nbig/two.log\nLine 1: hit',
    )
  })

  it('a capped glob returns the card meta, and presentResult builds the view from it', async () => {
    const harness = await loadRealHarness({ spillRoot, search: { globMaxResults: 3 } })
    const args = { pattern: '*.txt' }
    const result = await callTool(harness, 'glob', args, tree)
    expect(harness.registry.present('glob', args, result)).toEqual({
      card: 'search',
      shape: 'paths',
      paths: ['f9.txt', 'f8.txt', 'f7.txt'],
      truncated: true,
      total: 10,
      incomplete: false,
    })
    expect(pageOf(result.content)).toBe('f9.txt\nf8.txt\nf7.txt')
  })

  it('bounds the meta to searchMetaMaxBytes and says the card is truncated though the page was not', async () => {
    const harness = await loadRealHarness({ spillRoot, search: { searchMetaMaxBytes: 100 } })
    const result = await callTool(harness, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content).not.toContain('Showing')
    expect(result).toMatchObject({ meta: { shape: 'paths', truncated: true, total: 10, incomplete: false } })
    expect(bytes(result.meta)).toBeLessThanOrEqual(100)
  })

  it('a nested dispatch computes no meta, so presentResult falls back to the generic card', async () => {
    const { harness, grep, glob } = await fakeHarness((command) =>
      command.includes('--files') ? { stdout: statRecords(['1.5', './a.ts']) } : { stdout: rgLines(['a.ts', 1, 'x']) },
    )
    const grepped = await grep({ pattern: 'x' }, { nested: true })
    const globbed = await glob({ pattern: '*.ts' }, { nested: true })
    expect(grepped).toMatchObject({ isError: false, content: 'Found 1 match\n\na.ts\nLine 1: x' })
    expect(grepped).not.toHaveProperty('meta')
    expect(globbed).toMatchObject({ isError: false, content: 'a.ts' })
    expect(globbed).not.toHaveProperty('meta')
    expect(harness.registry.present('grep', { pattern: 'x' }, grepped)).toBeUndefined()
    expect(harness.registry.present('glob', { pattern: '*.ts' }, globbed)).toBeUndefined()
    // Not nested: the same calls carry their cards.
    expect(harness.registry.present('grep', { pattern: 'x' }, await grep({ pattern: 'x' }))).toMatchObject({ shape: 'matches' })
    expect(harness.registry.present('glob', { pattern: '*.ts' }, await glob({ pattern: '*.ts' }))).toMatchObject({ shape: 'paths' })
  })

  it('marks the card incomplete when rg could not read some paths, and not for a complete search', async () => {
    const { harness, grep, glob } = await fakeHarness((command) =>
      command.includes('--files')
        ? { exitCode: 2, stdout: statRecords(['1', 'a.ts']), stderr: 'rg: ./locked: Permission denied (os error 13)\n' }
        : { stdout: rgLines(['a.ts', 1, 'x']) },
    )
    expect(harness.registry.present('glob', { pattern: '*' }, await glob({ pattern: '*' }))).toMatchObject({ total: 1, incomplete: true })
    expect(harness.registry.present('grep', { pattern: 'x' }, await grep({ pattern: 'x' }))).toMatchObject({ total: 1, incomplete: false })
  })

  it('a failed, cross-shape or malformed result falls back to the generic card', async () => {
    const { harness } = await fakeHarness(() => ({}))
    const failed = await harness.registry.execute('grep', { pattern: 'x', unknown: 1 })
    expect(failed.isError).toBe(true)
    expect(harness.registry.present('grep', { pattern: 'x' }, failed)).toBeUndefined()
    const globMeta: SearchPathsMeta = { shape: 'paths', paths: [], truncated: false, total: 0, incomplete: false }
    expect(harness.registry.present('grep', { pattern: 'x' }, { isError: false, content: '', meta: globMeta })).toBeUndefined()
    expect(harness.registry.present('glob', { pattern: 'x' }, { isError: false, content: '', meta: { shape: 'paths' } })).toBeUndefined()
  })

  it('property: for random results and caps, the card holds exactly the matches the page text shows', async () => {
    const path = fc.constantFrom('a.ts', 'b/c.ts', 'd e.md', 'f-é.txt', 'g\u0001h.js')
    const text = fc.string({ unit: fc.constantFrom('x', 'é', ' ', '<', '\u0007', '"', '\\'), maxLength: 30 })
    const records = fc.array(fc.tuple(path, fc.integer({ min: 1, max: 40 }), text), { maxLength: 40 })
    const caps = fc.record({
      grepMaxMatches: fc.integer({ min: 1, max: 30 }),
      grepMaxMatchesPerFile: fc.integer({ min: 1, max: 8 }),
      inlineMaxBytes: fc.integer({ min: 20, max: 1500 }),
      grepMaxLineBytes: fc.integer({ min: 1, max: 40 }),
    })
    let stdout = ''
    const { grep, harness } = await fakeHarness(() => ({ stdout }))
    await fc.assert(
      fc.asyncProperty(records, caps, async (lines, config) => {
        stdout = rgLines(...lines)
        const capped = await fakeHarness(() => ({ stdout }), config)
        const result = await capped.grep({ pattern: 'x' })
        const view = capped.harness.registry.present('grep', { pattern: 'x' }, result)
        expect(view?.card === 'search' && view.shape === 'matches').toBe(true)
        if (view?.card !== 'search' || view.shape !== 'matches') return
        expect(rowsOfView(view.files)).toEqual(rowsOfPage(result.content))
        expect(view.total).toBe(lines.length)
        expect(view.truncated).toBe(result.content.startsWith('Found') && /^Found \d+ of/.test(result.content))
      }),
      { numRuns: 60, seed: 13 },
    )
    // The uncapped harness agrees with itself too.
    stdout = rgLines(['a.ts', 1, 'x'])
    expect(harness.registry.present('grep', { pattern: 'x' }, await grep({ pattern: 'x' }))).toMatchObject({ total: 1 })
  })
})

describe('the search card over real trees', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')

  it('property: for random trees and caps, real rg gives a card with exactly the matches the page text shows', async () => {
    const name = fc.constantFrom('a.ts', 'b.md', 'sub/c.ts', 'sub/deep/d.txt', 'e f.js', 'é.txt')
    const line = fc.oneof(
      fc.constant('no hit here'),
      fc.string({ unit: fc.constantFrom('x', 'hit', ' ', '<', 'é', '\u0007', '"'), maxLength: 24 }).map((text) => `hit ${text}`),
    )
    const files = fc.dictionary(name, fc.array(line, { minLength: 1, maxLength: 12 }), { minKeys: 1, maxKeys: 6 })
    const caps = fc.record({
      grepMaxMatches: fc.integer({ min: 1, max: 20 }),
      grepMaxMatchesPerFile: fc.integer({ min: 1, max: 6 }),
      inlineMaxBytes: fc.integer({ min: 30, max: 800 }),
      grepMaxLineBytes: fc.integer({ min: 4, max: 40 }),
    })
    let run = 0
    await fc.assert(
      fc.asyncProperty(files, caps, async (tree, search) => {
        const dir = scratchDir(`tree-${(run += 1)}`)
        writeTree(dir, Object.fromEntries(Object.entries(tree).map(([file, lines]) => [file, `${lines.join('\n')}\n`])))
        const harness = await loadRealHarness({ spillRoot, search })
        const result = await callTool(harness, 'grep', { pattern: 'hit' }, dir)
        const view = harness.registry.present('grep', { pattern: 'hit' }, result)
        if (view?.card !== 'search' || view.shape !== 'matches') throw new Error(`no matches card: ${result.content}`)
        expect(rowsOfView(view.files)).toEqual(rowsOfPage(result.content))
        expect(view.total).toBe(
          Object.values(tree)
            .flat()
            .filter((text) => text.includes('hit')).length,
        )
      }),
      { numRuns: 12, seed: 13 },
    )
  }, 120_000)
})

/** The card's rows as the page would print them: a header per file, then `Line N: text`. */
function rowsOfView(files: readonly { path: string; matches: readonly { lineNumber: number; line: string }[] }[]): string[] {
  return files.flatMap((file) => [file.path, ...file.matches.map((m) => `Line ${m.lineNumber}: ${m.line}`)])
}

/** The page text's rows, its `(cut)` marks dropped (the card has no cut flag): the groups between the heading and the footers. */
function rowsOfPage(content: string): string[] {
  if (!content.startsWith('Found')) return []
  const body = content.slice(content.indexOf('\n\n') + 2)
  const footer = body.indexOf('\n\n(')
  return (footer === -1 ? body : body.slice(0, footer))
    .split('\n')
    .filter((row) => row !== '')
    .map((row) => row.replace(/^(Line \d+) \(cut(?:; columns \d+-\d+)?\):/, '$1:'))
}
