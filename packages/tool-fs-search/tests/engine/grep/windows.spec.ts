import { describe, expect, it } from 'vitest'
import type { ToolExecContext } from '@dsh/core'
import { FakeBash, invalidUtf8, rgLines, type Scripted } from '../../fake-bash.js'
import { agent, fakeHarness } from '../../fake-harness.js'
import { listMatches, recordsOf, shownLine, type ShownMatches } from '../../../src/engine/grep/matches.js'
import { groupBlocks, rowBytes, formatRow } from '../../../src/engine/grep/rows.js'
import {
  applyWindow,
  buildWindowCommand,
  MAX_WINDOWS,
  parseWindowOutput,
  WINDOW_TIMEOUT_MS,
  showWindows,
  type WindowSearch,
} from '../../../src/engine/grep/windows.js'
import type { SearchContext } from '../../../src/engine/context.js'
import { shownOf } from './parsed.js'

const CUT_MARKER = ' [... omitted end of long line]'
const SEARCH: WindowSearch = { rg: '/opt/rg', pattern: 'x', base: '/work/repo', maxLineBytes: 8 }

/** A W block as the window script prints it: its head line, then the bytes as od hex. */
function block(file: number, line: number, column: number, offset: number, start: number, bytes: Buffer | string): string {
  const hex = [...Buffer.from(bytes)].map((b) => ` ${b.toString(16).padStart(2, '0')}`).join('')
  return `W ${file} ${line} ${column} ${offset} ${start}\n${hex}\n`
}

/** One file's cut lines, maxLineBytes 8. */
function cutLines(...lines: [line: number, head: string][]): ShownMatches {
  return shownOf(invalidUtf8(`D\0${lines.map(([line, head]) => `./a\0${line}:${head}${CUT_MARKER}\n`).join('')}`), { maxLineBytes: 8 })
}

/** The first record of `matches`. */
function first(matches: ShownMatches): number {
  return recordsOf(matches, matches.files[0]!)[0]!
}

describe('parseWindowOutput', () => {
  it('reads each W block and its hex, and skips a malformed head or hex', () => {
    const text = [
      block(0, 3, 40, 100, 131, 'abc'),
      'W 0 4 x 1 1\n 61\n',
      'W 0 5 1 1 1\n 6g\n',
      'W 1 7 2 0 0\n 61 62\n 63\n',
      'W 1 6 2 0 0',
    ].join('')
    const windows = parseWindowOutput(text)
    expect([...windows.keys()]).toEqual(['0:3', '1:7', '1:6'])
    expect(windows.get('0:3')).toEqual({ column: 40, lineOffset: 100, start: 131, bytes: Buffer.from('abc') })
    expect(windows.get('1:6')!.bytes.length).toBe(0)
    expect(windows.get('1:7')!.bytes.toString()).toBe('abc')
  })
})

describe('applyWindow', () => {
  const window = (column: number, lineOffset: number, start: number, bytes: Buffer | string) => ({
    column,
    lineOffset,
    start,
    bytes: Buffer.from(bytes),
  })

  it('shows the part around the match, with its columns, and counts it as the line now shown', () => {
    const matches = cutLines([1, 'aaaaaaaa'])
    // Match at column 21 of a line at offset 100: the window starts two bytes before it.
    expect(applyWindow(matches, first(matches), window(21, 100, 118, 'aaNEEDLE'), 8)).toBe(true)
    expect(formatRow(matches, first(matches))).toBe('Line 1 (cut; columns 19-26): aaNEEDLE')
    expect(rowBytes(matches, first(matches))).toBe(Buffer.byteLength(formatRow(matches, first(matches))))
    expect(listMatches(matches)).toEqual([{ path: './a', lineNumber: 1, line: 'aaNEEDLE', lineCut: true, lineFrom: 19 }])
  })

  it('keeps the head when the match lies in its first quarter, the window is not of this line, or the bytes are short', () => {
    const matches = cutLines([1, 'aaaaaaaa'])
    const record = first(matches)
    expect(applyWindow(matches, record, window(3, 0, 1, 'aNEEDLE'), 8)).toBe(false)
    expect(applyWindow(matches, record, window(21, 100, 99, 'aaNEEDLE'), 8)).toBe(false)
    expect(applyWindow(matches, record, window(21, 100, 130, 'aaNEEDLE'), 8)).toBe(false)
    expect(applyWindow(matches, record, window(21, 100, 118, 'aa'), 8)).toBe(false)
    expect(applyWindow(matches, record, window(21, 100, 118, 'a\nNEEDLE'), 8)).toBe(false)
    expect(shownLine(matches, record)).toBe('aaaaaaaa')
  })

  it('never starts or ends inside a character, and ends at the line without its CR', () => {
    const euro = Buffer.from('€')
    const matches = cutLines([1, 'aaaaaaaa'], [2, 'bbbbbbbb'], [3, 'cccccccc'], [4, 'dddddddd'])
    const [one, two, three, four] = recordsOf(matches, matches.files[0]!)
    // Starts on the euro sign's second byte; ends with the first byte of another.
    expect(
      applyWindow(matches, one!, window(21, 0, 18, Buffer.concat([euro.subarray(1), Buffer.from('NEEDL'), euro.subarray(0, 1)])), 8),
    ).toBe(true)
    expect(formatRow(matches, one!)).toBe('Line 1 (cut; columns 21-25): NEEDL')
    expect(applyWindow(matches, two!, window(21, 0, 18, 'xxN😀\r\nzz'), 8)).toBe(true)
    expect(formatRow(matches, two!)).toBe('Line 2 (cut; columns 19-25): xxN😀')
    // A read shorter than the budget ended at the file's end, within a whole character.
    expect(applyWindow(matches, three!, window(21, 0, 18, 'xxNé'), 8)).toBe(true)
    expect(shownLine(matches, three!)).toBe('xxNé')
    // A full read of ASCII and of a four-byte character end as they are.
    expect(applyWindow(matches, four!, window(21, 0, 18, 'xxNEE😀'), 8)).toBe(true)
    expect(shownLine(matches, four!)).toBe('xxNEE😀')
  })

  it('escapes control characters and replaced bytes as the footers count them', () => {
    const matches = cutLines([1, 'a\u001baaaaaa'], [2, 'bbbbbbbb'], [3, 'c\xffcccccc'], [4, 'd\ufffddd'], [5, 'e\xffe\ufffd'])
    const [one, two, three, four, five] = recordsOf(matches, matches.files[0]!)
    expect([matches.escaped, matches.lossy]).toEqual([1, 2])
    applyWindow(matches, one!, window(21, 0, 18, 'xxNEEDLE'), 8)
    applyWindow(matches, two!, window(21, 0, 18, Buffer.from([0x78, 0, 0x4e, 0xff])), 8)
    applyWindow(matches, three!, window(21, 0, 18, 'xxNEEDLE'), 8)
    expect(shownLine(matches, two!)).toBe('x\\u0000N\ufffd')
    expect([matches.escaped, matches.lossy]).toEqual([1, 2])
    // A U+FFFD of the line's own, in the window or the head, is not a replaced byte.
    applyWindow(matches, four!, window(21, 0, 18, 'xxN\ufffd'), 8)
    expect(shownLine(matches, four!)).toBe('xxN\ufffd')
    expect(matches.lossy).toBe(2)
    applyWindow(matches, five!, window(21, 0, 18, 'xxN\ufffd'), 8)
    expect(matches.lossy).toBe(1)
  })
})

describe('buildWindowCommand', () => {
  it('quotes a hostile pattern and path, and asks for each wanted line of each file, and the line before for multiline', () => {
    const wanted = [
      { file: 0, line: 1, record: 0 },
      { file: 1, line: 7, record: 0 },
      { file: 0, line: 3, record: 0 },
    ]
    const command = buildWindowCommand(["/r/-a'$(id)\nb", '/r/c'], wanted, {
      ...SEARCH,
      pattern: "-$(rm -rf x)'",
      patternFlags: ['--ignore-case'],
      multiline: true,
    })
    expect(command).toContain(`--ignore-case -e '-$(rm -rf x)'\\''' -- '/r/-a'\\''$(id)\nb' </dev/null | "$dsh_grep" -E '^(1|3|2):'`)
    expect(command).toContain(`"$dsh_grep" -E '^(7|6):'`)
    expect(command).toContain(`"$dsh_od" -An -v -tx1 -j "$s" -N 8 -- /r/c; done`)
    expect(command).toContain('s=$((o + c - 1 - 2)); [ "$s" -ge "$o" ] || s=$o; echo "W 1 $n $c $o $s"')
    expect(buildWindowCommand(['/r/a'], [{ file: 0, line: 4, record: 0 }], SEARCH)).toContain(
      `'--encoding=none' -e x -- /r/a </dev/null | "$dsh_grep" -E '^(4):'`,
    )
  })
})

describe('showWindows', () => {
  /** showWindows over a fake executor that answers the window script with `reply`. */
  async function run(
    matches: ShownMatches,
    reply: (command: string) => Scripted,
    search: Partial<WindowSearch> = {},
    signal?: AbortSignal,
  ) {
    const bash = new FakeBash((command) => reply(command))
    const ctx = { bash, config: { timeoutMs: 1000, rawOutputMaxBytes: 1 << 20 }, rg: '/opt/rg' } as unknown as SearchContext
    const exec: ToolExecContext = { name: 'grep', callId: 'c', agent, signal: signal ?? new AbortController().signal }
    const shown = matches.files.flatMap((file) => recordsOf(matches, file).map((record) => ({ file, record })))
    const changed = await showWindows(ctx, exec, matches, shown, { ...SEARCH, ...search })
    return { changed, bash }
  }

  it('asks nothing for a page with no cut match, a file it cannot name, or a path with a replaced byte', async () => {
    const plain = shownOf(invalidUtf8('D\0./a\u00001:short\n./b\xff\u00001:aaaaaaaa [... 1 more match]\n'), { maxLineBytes: 8 })
    expect(await run(plain, () => ({}))).toMatchObject({ changed: false, bash: { specs: [] } })
    const merged = cutLines([1, 'aaaaaaaa'])
    // A file merged from runs of different raw paths has no one path to open.
    const { path, size, first: start, order } = merged.files[0]!
    merged.files[0] = { path, size, first: start, order }
    const { changed, bash } = await run(merged, () => ({}))
    expect(changed).toBe(false)
    expect(bash.specs).toEqual([])
  })

  it('windows a line of a file whose name holds U+FFFD itself: the name opens the file', async () => {
    const matches = shownOf(`D\0./b\ufffd\u00001:aaaaaaaa${CUT_MARKER}\n`, { maxLineBytes: 8 })
    const { changed, bash } = await run(matches, () => ({ stdout: block(0, 1, 21, 0, 18, 'aaNEEDLE') }))
    expect(changed).toBe(true)
    expect(bash.specs[0]!.command).toContain(`-- '/work/repo/b\ufffd'`)
    expect([listMatches(matches)[0]!.line, matches.lossy]).toEqual(['aaNEEDLE', 0])
  })

  it('windows the lines the script answers for, one file numbered once, and keeps the others', async () => {
    const matches = shownOf(`D\0./a\u00001:aaaaaaaa${CUT_MARKER}\n./a\u00002:bbbbbbbb${CUT_MARKER}\n./b\u00001:cccccccc${CUT_MARKER}\n`, {
      maxLineBytes: 8,
    })
    const { changed, bash } = await run(matches, () => ({ stdout: block(0, 2, 21, 10, 28, 'bbNEEDLE') }))
    expect(changed).toBe(true)
    expect(bash.specs[0]!.command).toContain(`"$dsh_grep" -E '^(1|2):'`)
    expect(listMatches(matches).map((m) => m.line)).toEqual(['aaaaaaaa', 'bbNEEDLE', 'cccccccc'])
    // The window is in the spill's rows too.
    expect(Buffer.concat([...groupBlocks(matches)]).toString()).toContain('Line 2 (cut; columns 19-26): bbNEEDLE')
  })

  it('keeps the head of a multiline line whose line before matched: the match may only continue onto it', async () => {
    const matches = cutLines([1, 'aaaaaaaa'], [2, 'bbbbbbbb'])
    const stdout = block(0, 1, 21, 0, 18, 'aaNEEDLE') + block(0, 2, 21, 30, 48, 'bbNEEDLE')
    const { changed } = await run(matches, () => ({ stdout }), { multiline: true })
    expect(changed).toBe(true)
    expect(listMatches(matches).map((m) => m.line)).toEqual(['aaNEEDLE', 'bbbbbbbb'])
    const again = cutLines([2, 'bbbbbbbb'])
    expect((await run(again, () => ({ stdout: block(0, 1, 3, 0, 0, 'x') + block(0, 2, 3, 0, 0, 'x') }), { multiline: true })).changed).toBe(
      false,
    )
  })

  it(`asks for at most ${MAX_WINDOWS} lines`, async () => {
    const matches = cutLines(...Array.from({ length: MAX_WINDOWS + 5 }, (_, i): [number, string] => [i + 1, 'aaaaaaaa']))
    const { bash } = await run(matches, () => ({}))
    expect(bash.specs[0]!.command).toContain(`|${MAX_WINDOWS}):'`)
    expect(bash.specs[0]!.command).not.toContain(`|${MAX_WINDOWS + 1}`)
  })

  it('gives the fetch at most WINDOW_TIMEOUT_MS, or the configured timeout when that is shorter', async () => {
    const matches = cutLines([1, 'aaaaaaaa'])
    for (const [configured, applied] of [
      [60_000, WINDOW_TIMEOUT_MS],
      [1000, 1000],
    ] as const) {
      const bash = new FakeBash()
      const ctx = { bash, config: { timeoutMs: configured, rawOutputMaxBytes: 1 << 20 }, rg: '/opt/rg' } as unknown as SearchContext
      const exec: ToolExecContext = { name: 'grep', callId: 'c', agent, signal: new AbortController().signal }
      const shown = matches.files.flatMap((file) => recordsOf(matches, file).map((record) => ({ file, record })))
      await showWindows(ctx, exec, matches, shown, SEARCH)
      expect(bash.requests[0]!.timeoutMs).toBe(applied)
    }
  })

  it('keeps the heads when the script fails, and ends the call when it was aborted', async () => {
    const matches = cutLines([1, 'aaaaaaaa'])
    expect((await run(matches, () => ({ exitCode: 127 }))).changed).toBe(false)
    expect((await run(matches, () => ({ stop: 'timeout', exitCode: null }))).changed).toBe(false)
    const controller = new AbortController()
    const aborted = run(
      matches,
      () => {
        controller.abort()
        return { stop: 'abort', exitCode: null }
      },
      {},
      controller.signal,
    )
    await expect(aborted).rejects.toMatchObject({ code: 'SEARCH_ABORTED' })
  })
})

describe('windows through the registry', () => {
  it('retains the page again once its rows changed, and the spill holds the same rows', async () => {
    const { grep, bash } = await fakeHarness(
      (command) =>
        command.includes(' --byte-offset ')
          ? { stdout: block(0, 1, 2001, 0, 1501, `${'a'.repeat(499)}NEEDLE`) }
          : { stdout: rgLines(['./a.js', 1, `${'a'.repeat(2000)}${CUT_MARKER}`], ['./a.js', 2, 'NEEDLE']) },
      { grepMaxMatches: 1 },
    )
    const result = await grep({ pattern: 'NEEDLE' })
    expect(result.content.split('\n').slice(0, 4)).toEqual([
      'Found 1 of 2 matches',
      '',
      'a.js',
      `Line 1 (cut; columns 1502-2006): ${'a'.repeat(499)}NEEDLE`,
    ])
    expect(bash.searches()).toHaveLength(2)
  })
})
