import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { parseRgOutput } from '../../src/grep/parse.js'
import { rgLines } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { callTool, loadRealHarness, NAMES_TREE, scratchDirs, writeBytesTree, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('parseRgOutput', () => {
  it('parses a last record without a trailing newline', () => {
    expect(parseRgOutput('a.ts\u000012:last line')).toEqual({
      matches: [{ path: 'a.ts', lineNumber: 12, line: 'last line', lineCut: false }],
      binaryFiles: [],
      binaryStopped: [],
    })
  })

  it('parses a path that contains a newline, and rg previews of long lines', () => {
    expect(parseRgOutput('two\nlines\u00003:abc [... 4 more matches]\n').matches).toEqual([
      { path: 'two\nlines', lineNumber: 3, line: 'abc', lineCut: true },
    ])
  })
})

describe('the script output through the registry', () => {
  it.each([
    [{ stdout: 'garbage' }, 'grep could not parse its script output near "garbage"; the search result cannot be trusted.'],
    [
      { stdout: 'D\0garbage without a separator' },
      `grep could not parse rg's output near "garbage without a separator"; the search result cannot be trusted.`,
    ],
    [
      { stdout: 'D\0path\0x:broken\n' },
      `grep could not parse rg's output near "path\\u0000x:broken\\n"; the search result cannot be trusted.`,
    ],
  ])('reports SEARCH_FAILED for %j', async (scripted, content) => {
    const { grep } = await fakeHarness(() => scripted)
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })

  it('shows a path with a newline on one line, JSON-quoted', async () => {
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(['./two\nlines.txt', 5, 'hit']) }))
    expect((await grep({ pattern: 'hit' })).content).toBe('Found 1 match\n\n"two\\nlines.txt"\nLine 5: hit')
  })
})

describe('one bad record never sinks a search (docs/design.md#one-bad-record-never-sinks-a-search)', () => {
  const tree = scratchDir('bytes')
  beforeAll(() => writeBytesTree(tree))

  it('grep shows a non-UTF-8 name and line as U+FFFD and counts them', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '*.txt' }, tree)
    expect(result.isError).toBe(false)
    expect(result.content).toBe(
      [
        'Found 3 matches',
        'bad\ufffd.txt\nLine 1: needle',
        'content.txt\nLine 1: needle \ufffd(\ufffd end\nLine 2: clean needle',
        '(2 matched lines or paths contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
      ].join('\n\n'),
    )
  })

  it('a binary file whose NUL comes after a match does not sink a directory search', async () => {
    const late = scratchDir('late-binary')
    writeTree(late, {
      'a.txt': 'needle\n',
      'late.bin': Buffer.concat([Buffer.from(`needle\n${'a'.repeat(200_000)}\n`), Buffer.from([0]), Buffer.from('\nneedle\n')]),
    })
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, late)
    expect(result.isError).toBe(false)
    expect(result.content).toMatch(/^Found 2 matches\n\na\.txt\nLine 1: needle\n\nlate\.bin\nLine 1: needle/)
    expect(result.content).not.toContain('WARNING')
  })
})

describe('names and targets', () => {
  const tree = scratchDir('names')
  beforeAll(() => writeTree(tree, NAMES_TREE))

  it('grep shows a file name with a newline JSON-quoted on one line', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '*.txt' }, tree)
    expect(result.content).toBe(
      'Found 3 matches\n\n"line\\nbreak.txt"\nLine 1: needle\n\nplain.txt\nLine 1: needle\n\nsub/inner.txt\nLine 1: needle',
    )
  })

  it('grep notes an explicitly named binary file instead of printing it', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: 'blob.bin' }, tree)
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toContain('(Binary file matched, lines not shown: blob.bin.)')
  })
})
