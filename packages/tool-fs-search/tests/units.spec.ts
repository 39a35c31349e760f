import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sortNewestFirst } from '../src/glob-command.js'
import { parseRgOutput } from '../src/grep-parse.js'
import { formatGroups, formatRow, groupByFile, retainGrepMatches, type GrepMatch } from '../src/grep-retain.js'
import { chooseRg } from '../src/probe.js'
import { displayFrom, displayPath } from '../src/display-path.js'
import { countWithinBytes } from '../src/search-core.js'
import { FakeBash } from './fake-bash.js'

const match = (path: string, lineNumber: number): GrepMatch => ({ path, lineNumber, line: 'hit', lineCut: false })

describe('parseRgOutput', () => {
  it('parses a last record without a trailing newline', () => {
    expect(parseRgOutput('a.ts\u000012:last line')).toEqual({ matches: [{ path: 'a.ts', lineNumber: 12, line: 'last line', lineCut: false }], binaryFiles: [], binaryStopped: [] })
  })

  it('parses a path that contains a newline, and rg previews of long lines', () => {
    expect(parseRgOutput('two\nlines\u00003:abc [... 4 more matches]\n').matches).toEqual([{ path: 'two\nlines', lineNumber: 3, line: 'abc', lineCut: true }])
  })
})

describe('sortNewestFirst', () => {
  it('orders equal mtimes by name whichever way they arrive', () => {
    const at = (name: string) => ({ name, seconds: 5, nanos: 0 })
    expect(sortNewestFirst([at('b'), at('a'), at('c')]).map((f) => f.name)).toEqual(['a', 'b', 'c'])
    expect(sortNewestFirst([at('c'), at('a'), at('b')]).map((f) => f.name)).toEqual(['a', 'b', 'c'])
  })
})

describe('retainGrepMatches', () => {
  const budget = { maxMatches: 3, maxBytes: 10_000, maxPerFile: 2, maxLineBytes: 100 }

  it('names a capped file even when the page filled before any of its matches', () => {
    const matches = [match('a', 1), match('a', 2), match('b', 1), match('b', 2), match('z', 1), match('z', 2), match('z', 3)]
    expect(retainGrepMatches(matches, budget)).toMatchObject({
      kept: 3,
      total: 7,
      truncated: true,
      cutFiles: [{ path: 'z', shown: 0, total: 3 }],
    })
  })

  it('does not cap per file when only one file matched', () => {
    const matches = [match('a', 1), match('a', 2), match('a', 3), match('a', 4)]
    expect(retainGrepMatches(matches, budget)).toMatchObject({ kept: 3, cutFiles: [] })
  })
})

describe('formatGroups', () => {
  it('formats thousands of rows exactly as one join would, across its batches', () => {
    const matches = [...Array.from({ length: 4095 }, (_, i) => match('a', i + 1)), ...Array.from({ length: 5000 }, (_, i) => match('b', i + 1))]
    const groups = groupByFile(matches)
    expect(formatGroups(groups)).toBe(groups.map((g) => [g.path, ...g.matches.map(formatRow)].join('\n')).join('\n\n'))
    // A header and 4,095 rows fill one batch exactly, leaving none for the end.
    const exact = groupByFile(matches.slice(0, 4095))
    expect(formatGroups(exact)).toBe(['a', ...exact[0]!.matches.map(formatRow)].join('\n'))
  })
})

describe('search-core helpers', () => {
  it('displays paths relative inside the workdir and absolute outside it', () => {
    expect(displayPath('/w', '/w')).toBe('.')
    expect(displayPath('/w', './a/b')).toBe('a/b')
    expect(displayPath('/w', '/x/y')).toBe('/x/y')
    expect(displayPath('/w', '../w2/y')).toBe('/w2/y')
    expect(displayPath('/w', '..data/y')).toBe('..data/y')
    expect(displayPath('/w', 'tab\there')).toBe('"tab\\there"')
  })

  it('displays names under a directory exactly as displayPath would', () => {
    const cases: [string, string, string][] = [
      ['/w', '/w', 'a/b'],
      ['/w', '/w', './a'],
      ['/w', '/w/sub', 'x'],
      ['/w', '/', 'etc/x'],
      ['/w', '/other', './y'],
      ['/w', '/w/sub', '../up'],
      ['/w', '/w/sub', 'a/../../b'],
      ['/w', '/w/sub', '..'],
      ['/w', '/w/sub', 'a/..'],
      ['/w', '/w/sub', '/abs/z'],
      ['/w', '/w/new\nline', 'f'],
      ['/w', '/w', 'tab\tname'],
    ]
    for (const [workdir, dir, name] of cases) expect(displayFrom(workdir, dir)(name)).toBe(displayPath(workdir, path.resolve(dir, name)))
  })

  it('counts how many items fit a byte budget, never fewer than one', () => {
    expect(countWithinBytes([5, 5, 5], 10, (n) => n)).toBe(2)
    expect(countWithinBytes([50], 10, (n) => n)).toBe(1)
    expect(countWithinBytes([], 10, (n: number) => n)).toBe(0)
  })
})

describe('chooseRg', () => {
  it('wraps a non-Error thrown by the executor', async () => {
    const bash = new FakeBash()
    bash.runError = 'socket closed' as unknown as Error
    await expect(chooseRg(bash, ['rg'], { warn: () => undefined, info: () => undefined })).rejects.toThrow(
      'the ripgrep probe could not run in the bash executor: socket closed',
    )
  })
})
