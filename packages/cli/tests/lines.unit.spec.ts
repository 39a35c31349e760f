import { describe, expect, it } from 'vitest'
import type { ReadValue } from '@dsh/tool-fs'
import type { GlobValue, GrepValue } from '@dsh/tool-fs-search'
import { PLAIN } from '../src/color.js'
import { UsageError } from '../src/command-line.js'
import { LINES_FORMATS, linesFormatFor } from '../src/lines.js'

describe('LINES_FORMATS', () => {
  it('glob: every path, and what the listing left out as notes', () => {
    const value: GlobValue = {
      paths: ['new.ts', 'a\nb.ts'],
      total: 2,
      truncated: true,
      incomplete: ['shut: Permission denied (os error 13)'],
    }
    expect(LINES_FORMATS.glob!.print(value, false, PLAIN)).toEqual({
      records: 'new.ts\na\nb.ts\n',
      notes: ['incomplete: shut: Permission denied (os error 13)'],
    })
    expect(LINES_FORMATS.glob!.print(value, true, PLAIN).records).toBe('new.ts\0a\nb.ts\0')
  })

  it('grep: path:line:text, a NUL after the path with -0, and the gaps as notes', () => {
    const value: GrepValue = {
      matches: [{ path: 'a.ts', lineNumber: 3, line: 'x: y', lineCut: false }],
      total: 1,
      truncated: false,
      incomplete: ['shut: Permission denied (os error 13)'],
    }
    expect(LINES_FORMATS.grep!.print(value, false, PLAIN)).toEqual({
      records: 'a.ts:3:x: y\n',
      notes: ['incomplete: shut: Permission denied (os error 13)'],
    })
    expect(LINES_FORMATS.grep!.print(value, true, PLAIN).records).toBe('a.ts\x003:x: y\n')
  })

  it('grep: says when a result larger than memory lists only its first files', () => {
    const value: GrepValue = {
      matches: [{ path: 'a.ts', lineNumber: 3, line: 'x', lineCut: false }],
      matchesCut: true,
      total: 5_000_000,
      truncated: true,
      incomplete: [],
    }
    expect(LINES_FORMATS.grep!.print(value, false, PLAIN)).toEqual({
      records: 'a.ts:3:x\n',
      notes: ['incomplete: only the first 1 of 5000000 matches are listed; the text says where the rest is saved, or why it is not'],
    })
  })

  it('glob: says when a listing larger than memory lists only its newest paths', () => {
    const value: GlobValue = { paths: ['new.ts'], pathsCut: true, total: 1_000_000, truncated: true, incomplete: [] }
    expect(LINES_FORMATS.glob!.print(value, false, PLAIN)).toEqual({
      records: 'new.ts\n',
      notes: ['incomplete: only the newest 1 of 1000000 paths are listed; the text says where the rest is saved, or why it is not'],
    })
  })

  it('read: the raw lines, and where the file continues', () => {
    const value: ReadValue = { path: '/w/a.txt', offset: 1, lines: 2, lineTexts: ['one', ''], nextOffset: 3 }
    expect(LINES_FORMATS.read!.print(value, false, PLAIN)).toEqual({
      records: 'one\n\n',
      notes: ['/w/a.txt continues: read on with --offset 3'],
    })
    expect(LINES_FORMATS.read!.takesNul).toBe(false)
  })
})

describe('linesFormatFor', () => {
  it('gives the format of a tool that has one', () => {
    expect(linesFormatFor('grep', true)).toBe(LINES_FORMATS.grep)
    expect(linesFormatFor('read', false)).toBe(LINES_FORMATS.read)
  })

  it.each([
    ['tool_search', false, '--format lines prints glob, grep, read and tools, not tool_search'],
    ['read', true, '-0 (--null) ends paths, and read prints none'],
  ] as const)('refuses %s (-0: %s) as a usage error of that command', (tool, nul, message) => {
    expect(() => linesFormatFor(tool, nul)).toThrow(new UsageError(message, { command: tool }))
  })
})
