import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('grep exit statuses through the registry', () => {
  it('reports SEARCH_INVALID_PATTERN from rg stderr, never "no matches"', async () => {
    const { grep } = await fakeHarness(() => ({
      exitCode: 2,
      stdout: 'D\0',
      stderr: 'rg: regex parse error:\n    (?:a()\n    ^\nerror: unclosed group\n',
    }))
    const result = await grep({ pattern: 'a(' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(result.content).toContain('error: unclosed group')
  })

  it('keeps the matches of an exit 2 and reports the search incomplete, naming the unreadable paths', async () => {
    const stderr = Array.from({ length: 7 }, (_, i) => `rg: ./locked${i}: Permission denied (os error 13)`).join('\n')
    const { grep } = await fakeHarness(() => ({ exitCode: 2, stdout: rgLines(['./ok.ts', 1, 'hit']), stderr }))
    const result = await grep({ pattern: 'hit' })
    expect(result.isError).toBe(false)
    expect(result.content).toBe(
      'Found 1 match\n\nok.ts\nLine 1: hit\n\n(Search incomplete: rg could not read 7 paths, so results from them are missing: ./locked0: Permission denied (os error 13); ./locked1: Permission denied (os error 13); ./locked2: Permission denied (os error 13); ./locked3: Permission denied (os error 13); ./locked4: Permission denied (os error 13); and 2 more.)',
    )
  })

  it('reports no matches, incomplete, when only some subpaths failed', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 2, stdout: 'D\0', stderr: 'rg: ./locked: Permission denied (os error 13)\n' }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      'No matches found\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
  })

  it.each([
    [
      'a missing search root',
      'F\0',
      'rg: ./nope: IO error for operation on ./nope: No such file or directory (os error 2)\n',
      /^grep cannot search nope: rg: \.\/nope: IO error/,
    ],
    ['an exit 2 without any error line', 'D\0', 'something odd\n', /^grep cannot search nope: something odd Check the path/],
  ])('reports SEARCH_FAILED for %s', async (_case, stdout, stderr, content) => {
    const { grep } = await fakeHarness(() => ({ exitCode: 2, stdout, stderr }))
    const result = await grep({ pattern: 'x', path: 'nope' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(result.content).toMatch(content)
  })

  it('reports SEARCH_FAILED when the subdirectory of an include cannot be read', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 2, stdout: 'D\0', stderr: 'rg: ./src: Permission denied (os error 13)\n' }))
    expect(await grep({ pattern: 'x', include: 'src/**' })).toMatchObject({ errorCode: 'SEARCH_FAILED' })
  })

  it.each([
    [{ exitCode: 9 }, 'grep failed: rg exited with status 9. (rg printed no error)'],
    [{ exitCode: null, signal: 'SIGSEGV' }, 'grep failed: rg exited with status signal SIGSEGV. (rg printed no error)'],
  ])('reports SEARCH_FAILED for %j', async (scripted, content) => {
    const { grep } = await fakeHarness(() => scripted)
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })

  it('fails a search of one file that rg could not read, whatever its stderr says', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 2, stdout: 'F\0', stderr: 'rg: ./odd\nname: Permission denied (os error 13)\n' }))
    expect(await grep({ pattern: 'x', path: 'odd\nname' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
  })

  it('marks a search incomplete when rg exits 2 with matches but an error it does not tie to a path', async () => {
    const { grep } = await fakeHarness(() => ({
      exitCode: 2,
      stdout: rgLines(['./ok.ts', 1, 'hit']),
      stderr: 'tail of something odd\n',
      stderrTruncated: true,
    }))
    const result = await grep({ pattern: 'hit' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(
      'Found 1 match\n\nok.ts\nLine 1: hit\n\n(Search incomplete: rg exited with status 2, so some results may be missing; it printed: …tail of something odd.)',
    )
    expect(result.value).toMatchObject({ incomplete: ['…tail of something odd'] })
  })

  it('refuses an include with a file as path (the script exits 6), never ignoring it silently', async () => {
    const { bash, grep } = await fakeHarness(() => ({ exitCode: 6 }))
    expect(await grep({ pattern: 'x', path: 'f.ts', include: '*.js' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_INVALID_PATTERN',
      content:
        'grep include "*.js" filters the files of a directory search, but path f.ts is a file, so it cannot apply. Drop include to search the file, or pass its directory as path.',
    })
    expect(bash.searches().at(-1)).toContain('elif [ -e ./f.ts ]; then exit 6\n')
  })

  it('reports SEARCH_INVALID_PATTERN for a pattern that needs a NUL byte, not an unreadable path', async () => {
    const stderr =
      'rg: pattern contains "\\0" but it is impossible to match\n\nConsider enabling text mode with the --text flag (or -a for short). Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible.\n'
    const { grep } = await fakeHarness(() => ({ exitCode: 2, stdout: 'D\0', stderr }))
    expect(await grep({ pattern: '\\x00' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_INVALID_PATTERN',
      content:
        'grep cannot match a NUL byte: it skips binary files, so a pattern that needs one (such as \\x00) can never match. Remove it from the pattern.',
    })
  })
})

describe('rg failures are classified from its real stderr (docs/design.md#exit-2-is-not-always-failure)', () => {
  const tree = scratchDir('errors')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'other\n' }))

  it.each([
    ['an invalid regex', { pattern: 'a(' }],
    ['a regex with a literal newline', { pattern: 'needle\nx' }],
    ['a bad include glob', { pattern: 'needle', include: '{a' }],
    ['a bad path-shaped include glob', { pattern: 'needle', include: 'src/{a' }],
  ])('grep reports SEARCH_INVALID_PATTERN for %s', async (_what, args) => {
    const result = await callTool(harness, 'grep', args, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(result.content).toContain('Fix the pattern')
  })
})

describe('patterns rg cannot take as sent', () => {
  const tree = scratchDir('patterns')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle \ufffd\n' }))

  it('grep reports SEARCH_INVALID_PATTERN for "\\x00" (rg cannot match a NUL), naming no bogus path', async () => {
    const result = await callTool(harness, 'grep', { pattern: '\\x00' }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(result.content).toMatch(/^grep cannot match a NUL byte/)
  })
})
