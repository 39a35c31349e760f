import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { invalidUtf8, rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, scratchDirs, writeBytesTree, writeTree } from '../../real-harness.js'
import { listMatches } from '../../../src/engine/grep/matches.js'
import { shownOf } from './parsed.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('showMatches', () => {
  it("merges a file whose records came apart, sorting by line and keeping rg's order for equal lines", () => {
    const matches = shownOf('D\0dup\u00002:b\nother\u00001:x\ndup\u00001:a\ndup\u00002:c\n')
    expect(listMatches(matches).map((m) => `${m.path}:${m.lineNumber}:${m.line}`)).toEqual(['dup:1:a', 'dup:2:b', 'dup:2:c', 'other:1:x'])
  })

  it('counts every match of a path with a replaced byte, and the lines with one elsewhere', () => {
    expect(shownOf(invalidUtf8('D\0bad\xff\u00001:x\nbad\xff\u00002:y\nok\u00001:\xff\nok\u00002:z\n')).lossy).toBe(3)
  })

  it("counts no U+FFFD of a file's own, in a path or a line, and a line with both once", () => {
    const matches = shownOf(invalidUtf8('D\0lit\ufffd\u00001:x\nok\u00001:\ufffd\nok\u00002:\ufffd \xff \ufffd\n'))
    expect(matches.lossy).toBe(1)
    expect(matches.files.map((file) => file.source)).toEqual(['lit\ufffd', 'ok'])
  })

  it('shows one file alone as among others: its source only when no byte of its name was replaced', () => {
    for (const others of ['', 'z\u00001:w\n']) {
      const plain = shownOf(`D\0ok\u00001:x\nok\u00002:y\n${others}`)
      expect(plain.files[0]).toEqual({ path: 'ok', size: 2, first: 0, order: undefined, source: 'ok' })
      const replaced = shownOf(invalidUtf8(`D\0bad\xff\u00001:x\n${others}`))
      expect(replaced.files[0]).toEqual({ path: 'bad\ufffd', size: 1, first: 0, order: undefined })
      expect(replaced.lossy).toBe(1)
      // Lines out of order, alone too, are put in order.
      const unordered = shownOf(`D\0u\u00002:b\nu\u00001:a\n${others}`)
      expect(
        listMatches(unordered)
          .map((m) => `${m.path}:${m.lineNumber}:${m.line}`)
          .slice(0, 2),
      ).toEqual(['u:1:a', 'u:2:b'])
    }
  })

  it('keeps two names that decode alike apart when one had a byte replaced: only its matches count', () => {
    // rg prints `a\xff` and then `a\ufffd`, whose bytes are the same once the first is decoded.
    const matches = shownOf(invalidUtf8('D\0a\xff\u00002:x\na\xff\u00003:y\na\ufffd\u00001:z\n'))
    expect(listMatches(matches).map((m) => `${m.path}:${m.lineNumber}:${m.line}`)).toEqual(['a\ufffd:1:z', 'a\ufffd:2:x', 'a\ufffd:3:y'])
    expect(matches.lossy).toBe(2)
    // Merged under one display path, the file has no one source to open.
    expect(matches.files[0]!.source).toBeUndefined()
    expect(shownOf(invalidUtf8('D\0a\ufffd\u00001:z\na\xff\u00002:x\n')).lossy).toBe(1)
  })
})

describe('matches as shown, through the registry', () => {
  it('lists every match as an object only when value.matches is read, and the same list each time', async () => {
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(['./b.ts', 2, 'two'], ['./a.ts', 1, 'one']) }))
    const value = (await grep({ pattern: 'x' })).value as { matches: unknown[] }
    expect(value.matches).toEqual([
      { path: 'a.ts', lineNumber: 1, line: 'one', lineCut: false },
      { path: 'b.ts', lineNumber: 2, line: 'two', lineCut: false },
    ])
    expect(value.matches).toBe(value.matches)
  })

  it('merges two raw paths that display the same into one group', async () => {
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(['./dup.ts', 3, 'c'], ['dup.ts', 1, 'a'], ['./dup.ts', 2, 'b']) }))
    expect((await grep({ pattern: 'x' })).content).toBe('Found 3 matches\n\ndup.ts\nLine 1: a\nLine 2: b\nLine 3: c')
  })

  it('cuts a long line to its byte budget and marks it, whether rg or the retainer cut it', async () => {
    const { grep } = await fakeHarness(
      () => ({ stdout: rgLines(['a', 1, `${'é'.repeat(10)} [... omitted end of long line]`], ['b', 1, 'x'.repeat(30)]) }),
      {
        grepMaxLineBytes: 12,
      },
    )
    expect((await grep({ pattern: 'x' })).content).toBe('Found 2 matches\n\na\nLine 1 (cut): éééééé\n\nb\nLine 1 (cut): xxxxxxxxxxxx')
  })
})

describe('matches as shown, through the real executor', () => {
  const tree = scratchDir('bytes')
  beforeAll(() => writeBytesTree(tree))

  it('one 5 MB line is cut to a window around its match and the search still succeeds', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '*.js' }, tree)
    expect(result.isError).toBe(false)
    const lines = result.content.split('\n')
    expect(lines.slice(0, 3)).toEqual(['Found 2 matches', '', 'minified.js'])
    const row = lines[3]!
    expect(row).toBe(`Line 1 (cut; columns 2499501-2501500): ${'x'.repeat(500)}needle${'y'.repeat(1494)}`)
    expect(lines.slice(4)).toEqual(['', 'small.js', 'Line 1: const needle = 1'])
  })

  it('a valid U+FFFD character is not reported as invalid UTF-8', async () => {
    const valid = scratchDir('replacement-char')
    writeTree(valid, { 'ok.txt': 'needle \ufffd\n' })
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, valid)
    expect(result.content).toBe('Found 1 match\n\nok.txt\nLine 1: needle \ufffd')
  })

  it("tells a U+FFFD of a file's own, in a line, a name, a window or a directory, from bytes that are not valid UTF-8", async () => {
    const tree = scratchDir('literal-fffd')
    writeTree(tree, {
      // A U+FFFD in a line, in a file name, and in a directory searched.
      'line.txt': 'needle \ufffd\n',
      'name\ufffd.txt': 'needle\n',
      'dir\ufffd/inner.txt': 'needle\n',
      // A long line cut to a window around its match, with U+FFFD in the window and in the head.
      'long.txt': `\ufffd${'x'.repeat(3000)}needle \ufffd ${'y'.repeat(3000)}\n`,
      // A U+FFFD and an invalid byte in one line: one line counted, once.
      'mixed.txt': Buffer.concat([Buffer.from('needle \ufffd '), Buffer.from([0xff, 0xfe]), Buffer.from(' \ufffd\n')]),
    })
    // A name with an invalid byte whose line holds U+FFFD: one match, counted once.
    writeFileSync(Buffer.concat([Buffer.from(join(tree, 'bad')), Buffer.from([0xff]), Buffer.from('.txt')]), 'needle \ufffd\n')
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, tree)
    expect(result.content.split('\n')).toEqual([
      'Found 6 matches',
      '',
      'bad\ufffd.txt',
      'Line 1: needle \ufffd',
      '',
      'dir\ufffd/inner.txt',
      'Line 1: needle',
      '',
      'line.txt',
      'Line 1: needle \ufffd',
      '',
      'long.txt',
      `Line 1 (cut; columns 2504-4503): ${'x'.repeat(500)}needle \ufffd ${'y'.repeat(1489)}`,
      '',
      'mixed.txt',
      'Line 1: needle \ufffd \ufffd\ufffd \ufffd',
      '',
      'name\ufffd.txt',
      'Line 1: needle',
      '',
      '(2 matched lines or paths contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    ])
    // A directory whose name holds U+FFFD, searched from inside and from its parent: nothing replaced.
    for (const [args, cwd] of [
      [{ pattern: 'needle', path: 'dir\ufffd' }, tree],
      [{ pattern: 'needle' }, join(tree, 'dir\ufffd')],
    ] as const) {
      const inner = await callTool(harness, 'grep', args, cwd)
      expect(inner.content).toMatch(/^Found 1 match\n\n(dir\ufffd\/)?inner\.txt\nLine 1: needle$/)
    }
  })

  it('counts a window that shows bytes that are not valid UTF-8, and not its head that holds U+FFFD', async () => {
    const tree = scratchDir('window-bytes')
    writeTree(tree, {
      'long.txt': Buffer.concat([
        Buffer.from(`\ufffd${'x'.repeat(3000)}needle `),
        Buffer.from([0xff]),
        Buffer.from(` ${'y'.repeat(3000)}\n`),
      ]),
    })
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, tree)
    expect(result.content).toBe(
      `Found 1 match\n\nlong.txt\nLine 1 (cut; columns 2504-4503): ${'x'.repeat(500)}needle \ufffd ${'y'.repeat(1491)}\n\n(1 matched line or path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)`,
    )
  })
})
