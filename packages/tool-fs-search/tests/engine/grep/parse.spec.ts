import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { escapeLineControls } from '../../../src/engine/escape-controls.js'
import { listMatches, showMatches } from '../../../src/engine/grep/matches.js'
import { previewMarkerStart, RgOutputParser } from '../../../src/engine/grep/parse.js'
import { invalidUtf8, rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, NAMES_TREE, scratchDirs, writeBytesTree, writeTree } from '../../real-harness.js'
import { parseOutput, shownOf } from './parsed.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('RgOutputParser', () => {
  it('tells replaced bytes from a U+FFFD rg printed, wherever the chunks split either', () => {
    // A name with a replaced byte; one with a U+FFFD; a line with both; a line with only a U+FFFD; a
    // four-byte character cut short, split across chunks every way.
    const stdout = invalidUtf8(
      'D\0bad\xff.txt\u00001:needle\nlit\ufffd.txt\u00001:needle \ufffd\nlit\ufffd.txt\u00002:\ufffd\xff\ufffd\nok\u00003:\ufffd\n',
    )
    const cut = Buffer.concat([Buffer.from('ok\u00004:needle '), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('\n')])
    // Names that decode alike, one after another: a replaced one, a literal one, a replaced one again.
    const alike = invalidUtf8('r\xff\u00001:x\nr\ufffd\u00002:y\nr\xff\u00003:z\n')
    const input = Buffer.concat([stdout, cut, alike])
    for (let chunkBytes = 1; chunkBytes <= input.length; chunkBytes += 1) {
      const output = parseOutput(input, { chunkBytes })
      const runs = output.records.runs.map((run) => [run.path, run.pathReplaced, run.lossyLines])
      expect(runs, `chunks of ${chunkBytes}`).toEqual([
        ['bad\ufffd.txt', true, 0],
        ['lit\ufffd.txt', false, 1],
        ['ok', false, 1],
        ['r\ufffd', true, 0],
        ['r\ufffd', false, 0],
        ['r\ufffd', true, 0],
      ])
      expect(output.records.replacedLines.size).toBe(2)
      expect(showMatches(output, (path) => path).lossy).toBe(5)
    }
  })

  it('counts a replaced byte only when the cut line still shows it', () => {
    const stdout = invalidUtf8('D\0a\u00001:abcd\xff\na\u00002:\ufffdbcd\xff\na\u00003:a\xffbcd\n')
    expect(shownOf(stdout, { maxLineBytes: 4 }).lossy).toBe(1)
  })

  it('parses a last record without a trailing newline', () => {
    expect(listMatches(shownOf('D\0a.ts\u000012:last line'))).toEqual([{ path: 'a.ts', lineNumber: 12, line: 'last line', lineCut: false }])
  })

  it('parses a path that contains a newline, and rg previews of long lines', () => {
    expect(listMatches(shownOf('D\0two\nlines\u00003:abc [... 4 more matches]\n', { maxLineBytes: 3 }))).toEqual([
      { path: 'two\nlines', lineNumber: 3, line: 'abc', lineCut: true },
    ])
  })

  it("shows whole a line that ends in rg's preview marker but is shorter than a preview's head", () => {
    // rg previews only a line longer than --max-columns, and its head is at least that many bytes.
    const head = 'h'.repeat(40)
    const stdout = `D\0a\u00001:ab [... omitted end of long line]\na\u00002:abc [... 1 more match]\r\na\u00003:${head} [... 2 more matches]\n`
    expect(listMatches(shownOf(stdout, { maxLineBytes: 40 })).map(({ line, lineCut }) => [line, lineCut])).toEqual([
      ['ab [... omitted end of long line]', false],
      ['abc [... 1 more match]', false],
      [head, true],
    ])
  })

  it('parses the same records however the output is cut into chunks', () => {
    // Every branch that waits for more bytes is taken whatever chunk sizes a pipe happens to deliver.
    const stdout = Buffer.concat([
      Buffer.from('D\0a.ts\u00001:plain\r\nsrc/b\nc.ts\u0000007:ctl\u001b[31m\n'),
      Buffer.from('src/b\nc.ts: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n'),
      Buffer.from('long.ts\u000012:abc [... 4 more matches]\nlong.ts\u000013:d\u00e9f \u00ef\u00bf\u00bd\n'),
      Buffer.from([0x78, 0xff, 0x00, 0x39, 0x3a, 0x62, 0xfe, 0x0a]),
      Buffer.from('last.ts\u00002:no newline'),
    ])
    const whole = parseOutput(stdout, { chunkBytes: stdout.length })
    const expected = { matches: listMatches(shownOf(stdout, { chunkBytes: stdout.length })), binary: whole.binaryStopped }
    expect(expected.binary).toEqual(['src/b\nc.ts'])
    for (let chunkBytes = 1; chunkBytes < stdout.length; chunkBytes += 1) {
      const parsed = parseOutput(stdout, { chunkBytes })
      expect({ matches: listMatches(shownOf(stdout, { chunkBytes })), binary: parsed.binaryStopped }, `chunks of ${chunkBytes}`).toEqual(
        expected,
      )
    }
    expect(expected.matches.map((m) => m.lineNumber)).toEqual([1, 2, 12, 13, 7, 9])
    // Context records (`-` after the number) around matches, a path with a newline among them.
    const context = Buffer.concat([
      Buffer.from('D\0a.ts\u00001-before\r\na.ts\u00002:match\na.ts\u00003-after \u00e9\n'),
      Buffer.from('two\nlines\u000040-ctx\u001b\ntwo\nlines\u000041:hit [... 2 more matches]\n'),
      Buffer.from([0x78, 0xff, 0x00, 0x39, 0x2d, 0x62, 0xfe, 0x0a]),
    ])
    const contextWhole = listMatches(shownOf(context, { chunkBytes: context.length, context: true }))
    expect(contextWhole.map((m) => m.lineNumber)).toEqual([1, 2, 3, 40, 41, 9])
    for (let chunkBytes = 1; chunkBytes < context.length; chunkBytes += 1) {
      expect(listMatches(shownOf(context, { chunkBytes, context: true })), `context in chunks of ${chunkBytes}`).toEqual(contextWhole)
    }
    for (const bad of ['D', 'D\0a.ts\u0000x:y\n', 'Q\0']) {
      for (const chunkBytes of [1, 2, 64])
        expect(() => parseOutput(bad, { chunkBytes }), `${JSON.stringify(bad)} in ${chunkBytes}`).toThrow(/could not parse/)
    }
  })

  it('finds a byte to escape at any offset of a line, read four bytes at a step, and only those', () => {
    // Each kind of character that must be escaped, and a tab and the edges of printable ASCII that
    // must not, at every offset of lines of every length around a word's four bytes.
    const escaped = ['\u0001', '\u001b', '\u001f', '\u007f', '\u0085', '\u009b', '\u200b', '\u202e', '\ufeff']
    const kept = ['\t', ' ', '~', '\u00e9', '\u00a0', '\ufffd']
    for (const length of [1, 3, 4, 5, 8, 9, 13]) {
      for (let at = 0; at < length; at += 1) {
        for (const char of [...escaped, ...kept]) {
          const text = `${'x'.repeat(at)}${char}${'y'.repeat(length - at - 1)}`
          const shown = shownOf(`D\0f\u00001:${text}\n`, { chunkBytes: 64 })
          expect({ line: listMatches(shown)[0]!.line, escaped: shown.escaped }, JSON.stringify(text)).toEqual({
            line: escapeLineControls(text),
            escaped: escaped.includes(char) ? 1 : 0,
          })
        }
      }
    }
  })

  it('tells a path from the last one by any byte, four at a step from its end', () => {
    // Paths of every length around a word, differing from the one before only at one byte.
    for (const length of [1, 2, 3, 4, 5, 7, 8, 9]) {
      for (let at = 0; at < length; at += 1) {
        const first = 'p'.repeat(length)
        const second = `${'p'.repeat(at)}q${'p'.repeat(length - at - 1)}`
        const matches = listMatches(shownOf(`D\0${first}\u00001:a\n${second}\u00002:b\n${first}\u00003:c\n`, { chunkBytes: 64 }))
        expect(
          matches.map((m) => `${m.path}:${m.lineNumber}`),
          `${first} then ${second}`,
        ).toEqual([`${first}:1`, `${first}:3`, `${second}:2`].sort())
      }
    }
  })

  it('waits for the NUL of a path with a newline that arrives in a later chunk', () => {
    const stdout = 'D\0a\u00001:x\nname\nwith\nnewlines\u00002:y\n'
    for (const chunkBytes of [1, 9, 12, 64]) {
      expect(listMatches(shownOf(stdout, { chunkBytes })).map((m) => m.path)).toEqual(['a', 'name\nwith\nnewlines'])
    }
  })

  it('reads line numbers as Number does, a leading zero and too many digits included', () => {
    const matches = listMatches(shownOf('D\0a\u0000007:x\na\u000012345678901234567890:y\na\u00000:z\n'))
    expect(matches.map((m) => m.lineNumber)).toEqual([0, 7, 12345678901234567000])
  })

  it('records binary-file notices, which carry no NUL, for the file searched or the file just printed', () => {
    const output = parseOutput(
      'F\0./bin.dat: binary file matches (found "\\0" byte around offset 5)\n./z\u00001:x\n./z: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n',
      { fileTarget: './bin.dat' },
    )
    expect(output).toMatchObject({ searched: 'file', binaryFiles: ['./bin.dat'], binaryStopped: ['./z'] })
    expect(output.records.count).toBe(1)
  })

  it('never reads a notice for a path it cannot name, so a name that looks like one stays a record', () => {
    // A file named like a notice, then a newline: rg prints its name, a NUL and its record.
    const name = 'a: binary file matches (found "\\0" byte around offset 1)\nb'
    const output = parseOutput(`D\0${name}\u00002:x\n`)
    expect(output.binaryFiles).toEqual([])
    expect(listMatches(showMatches(output, (path) => path))).toEqual([{ path: name, lineNumber: 2, line: 'x', lineCut: false }])
    // A notice for a path that is neither the target nor the file just printed does not parse.
    expect(() => parseOutput('D\0./q: binary file matches (found "\\0" byte around offset 1)\n')).toThrow(/could not parse/)
  })

  it('reads the notice of a file whose name holds a newline, in chunks of any size', () => {
    const stdout = `D\0./big\nbin\u00001:foo\n./big\nbin: WARNING: stopped searching binary file after match (found "\\0" byte around offset 7)\n./c\u00002:foo\n`
    for (const chunkBytes of [1, 2, 5, 64]) {
      const output = parseOutput(stdout, { chunkBytes })
      expect(output.binaryStopped).toEqual(['./big\nbin'])
      expect(listMatches(showMatches(output, (path) => path)).map((m) => m.path)).toEqual(['./big\nbin', './c'])
    }
  })

  it('waits for the end of a notice whose path ends in a newline, and reads one the output ends without a newline', () => {
    const notice = ': WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)'
    const stdout = `D\0./n\n\u00001:x\n./n\n${notice}\n./c\u00002:y\n`
    for (const chunkBytes of [1, 3, 4, 64]) {
      const output = parseOutput(stdout, { chunkBytes })
      expect(output.binaryStopped).toEqual(['./n\n'])
      expect(output.records.count).toBe(2)
    }
    expect(parseOutput(`D\0./z\u00001:x\n./z${notice}`, { chunkBytes: 1000 }).binaryStopped).toEqual(['./z'])
  })

  it('reads context records, marked `-`, only when context was asked for', () => {
    const stdout = 'D\0a\u00001-before\na\u00002:match\na\u00003-after\n'
    expect(listMatches(shownOf(stdout, { context: true })).map((m) => m.lineNumber)).toEqual([1, 2, 3])
    expect(() => parseOutput(stdout)).toThrow(/could not parse/)
  })

  it.each([
    ['an empty output', '', 'grep could not parse its script output near ""'],
    ['a first record cut short', 'D', 'grep could not parse its script output near "D"'],
    ['a line that never reaches a NUL', 'D\0no separator', `grep could not parse rg's output near "no separator"`],
    ['a record cut off in its number', 'D\0a\u000012', `grep could not parse rg's output near "a\\u000012"`],
    ['a long excerpt', `D\0${'é'.repeat(200)}\n`, `grep could not parse rg's output near "${'é'.repeat(80)}"`],
  ])('throws SEARCH_FAILED for %s once the output has ended', (_label, stdout, message) => {
    expect(() => parseOutput(stdout)).toThrow(expect.objectContaining({ code: 'SEARCH_FAILED', message: expect.stringContaining(message) }))
  })

  it('keeps what arrives after a record that does not parse, for the message, and parses no more', () => {
    expect(() => parseOutput('D\0a\u00001:x\nb\u0000y:z\nc\u00001:w\n', { chunkBytes: 1 })).toThrow(`near "b\\u0000y:z\\nc\\u00001:w\\n"`)
  })
  it('keeps, for a run stopped anywhere, exactly the records that arrived whole (docs/design.md#a-timeout-returns-what-was-found)', () => {
    // A path with a newline, a binary notice and a multibyte line, so a cut lands inside each.
    const stdout = Buffer.from(
      'D\0a\u00001:x\nname\nwith\u00002:y é\na\u00003:z\na: binary file matches (found "\\0" byte around offset 9)\nb\u00004:w\n',
    )
    const stopped = (bytes: Buffer, chunkBytes: number) => {
      const parser = new RgOutputParser(2000, 1 << 20)
      for (let at = 0; at < bytes.length; at += chunkBytes) parser.push(bytes.subarray(at, at + chunkBytes))
      return listMatches(showMatches(parser.finishStopped(), (path) => path)).map((m) => `${m.path}:${m.lineNumber}`)
    }
    const whole = ['a:1', 'name\nwith:2', 'a:3', 'b:4']
    // Where each record ends, after its line feed: a cut before that drops it.
    const ends = ['1:x\n', 'é\n', '3:z\n', '4:w\n'].map((tail) => stdout.indexOf(tail) + Buffer.byteLength(tail))
    for (let cut = 0; cut <= stdout.length; cut += 1) {
      const expected = whole.slice(0, ends.filter((end) => end <= cut).length)
      for (const chunkBytes of [1, 5, 64])
        expect(stopped(stdout.subarray(0, cut), chunkBytes).sort(), `cut at ${cut}`).toEqual(expected.sort())
    }
  })

  it('still fails, for a stopped run, on a record before the cut that does not parse', () => {
    const parser = new RgOutputParser(2000, 1 << 20)
    parser.push(Buffer.from('D\0a\u0000x:y\nb\u00001:'))
    expect(() => parser.finishStopped()).toThrow(expect.objectContaining({ code: 'SEARCH_FAILED' }))
  })
})

// The marker as the whole-output parser matched it.
const PREVIEW_MARKER = / \[\.\.\. (?:omitted end of long line|\d+ more match(?:es)?)\]$/

describe('previewMarkerStart', () => {
  it('finds the marker exactly where the pattern rg output was read with does', () => {
    const pieces = [' [... ', 'omitted end of long line', ' more match', 'es', ']', '3', '12', 'x', ' ', '[...']
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), (parts) => {
        const text = parts.join('')
        expect(previewMarkerStart(Buffer.from(text), 0, text.length)).toBe(PREVIEW_MARKER.exec(text)?.index ?? -1)
      }),
      { numRuns: 2000 },
    )
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
