import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { GlobListingParser, type GlobListing } from '../../../src/engine/glob/listing.js'
import { sortNewestFirst } from '../../../src/engine/glob/order.js'
import { isPlainName } from '../../../src/engine/display-path.js'
import { statRecords } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, NAMES_TREE, pageOf, scratchDirs, writeMtimeTree, writeTree } from '../../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

/** A listing parsed as it would arrive, in chunks of `chunkBytes`. */
function parsed(stdout: string | Buffer, chunkBytes = 3): GlobListing {
  const bytes = Buffer.from(stdout)
  const parser = new GlobListingParser(1 << 20)
  for (let at = 0; at < bytes.length; at += chunkBytes) parser.push(bytes.subarray(at, at + chunkBytes))
  return parser.finish()
}

/** Each file of a listing: its name, whole seconds and nanoseconds, in `order`. */
function files(listing: GlobListing, order: ArrayLike<number> = Array.from({ length: listing.count }, (_, i) => i)) {
  return Array.from(order, (i) => ({
    name: listing.bytes.toString('utf8', listing.nameStart[i], listing.nameEnd[i]),
    seconds: listing.seconds[i]!,
    nanos: listing.nanos[i]!,
  }))
}

const names = (listing: GlobListing): string[] => files(listing, sortNewestFirst(listing)).map((f) => f.name)

describe('the glob listing', () => {
  it('parses mtime records, including names with tabs and newlines', () => {
    expect(files(parsed(statRecords(['1700000000.5', 'a\tb'], ['1700000001', 'new\nline'], ['1700000002.1234567890', 'find'])))).toEqual([
      { name: 'a\tb', seconds: 1_700_000_000, nanos: 500_000_000 },
      { name: 'new\nline', seconds: 1_700_000_001, nanos: 0 },
      { name: 'find', seconds: 1_700_000_002, nanos: 123_456_789 },
    ])
  })

  it.each(['1\tno-terminator', '1\t\0', 'x\0y\tz\0', 'soon\tname\0', '1.\tx\0', '1.12345678901\tx\0', '-\tx\0'])(
    'fails on the malformed listing %j',
    (listing) => {
      expect(() => parsed(listing)).toThrow(/^glob could not parse the file listing near /)
    },
  )

  it('quotes 80 characters of what does not parse', () => {
    expect(() => parsed(`1\tok\0${'é'.repeat(200)}\0`)).toThrow(`near "${'é'.repeat(80)}"`)
  })

  it('reads an mtime before 1970 as negative, fraction and all, and more than 15 digits as Number does', () => {
    expect(files(parsed(statRecords(['-315619200.25', 'old'], ['12345678901234567890', 'far'])))).toEqual([
      { name: 'old', seconds: -315_619_200, nanos: -250_000_000 },
      { name: 'far', seconds: 12345678901234567000, nanos: 0 },
    ])
    expect(names(parsed(statRecords(['-1.25', 'a'], ['-1.5', 'b'], ['0', 'c'])))).toEqual(['c', 'a', 'b'])
  })

  it('sorts newest first, then by name, deterministically', () => {
    const listing = parsed(
      statRecords(['10.000000001', 'b'], ['10.000000002', 'a'], ['11', 'z'], ['10.000000001', 'a'], ['10.000000001', 'a']),
    )
    expect(files(listing, sortNewestFirst(listing)).map((f) => `${f.seconds}.${f.nanos}:${f.name}`)).toEqual([
      '11.0:z',
      '10.2:a',
      '10.1:a',
      '10.1:a',
      '10.1:b',
    ])
  })

  it('orders equal mtimes by name whichever way they arrive, as JavaScript compares strings', () => {
    expect(names(parsed(statRecords(['5', 'b'], ['5', 'a'], ['5', 'c'])))).toEqual(['a', 'b', 'c'])
    expect(names(parsed(statRecords(['5', 'c'], ['5', 'a'], ['5', 'b'])))).toEqual(['a', 'b', 'c'])
    // UTF-16 puts a character past U+FFFF (a surrogate pair) before U+E000, where UTF-8 would not.
    const mixed = ['\uffee', '😀', '\ue000', 'z', 'é']
    for (const arrival of [mixed, [...mixed].reverse()]) {
      expect(names(parsed(statRecords(...arrival.map((name): [string, string] => ['5', name]))))).toEqual([...mixed].sort())
    }
  })

  it('sorts many names of one time as it sorts a few', () => {
    const many = Array.from({ length: 100 }, (_, i) => `f${(i * 37) % 100}`)
    expect(names(parsed(statRecords(...many.map((name): [string, string] => ['7', name]))))).toEqual([...many].sort())
  })

  it("sorts thousands of times, some shared, past the arrays' first size", () => {
    const times = Array.from({ length: 3000 }, (_, i) => [`${(i * 7919) % 3000}.${i % 3}`, `n${i}`] as [string, string])
    const listing = parsed(statRecords(...times), 4096)
    const sorted = files(listing, sortNewestFirst(listing))
    expect(sorted.every((f, i) => i === 0 || sorted[i - 1]!.seconds + sorted[i - 1]!.nanos / 1e9 >= f.seconds + f.nanos / 1e9)).toBe(true)
  })

  it.each([
    [['a', './b/c.ts', 'a.b'], true],
    [['a..b'], false],
    [['.//x'], false],
    [['a//b'], false],
    [['/abs'], false],
    [['a/../b'], false],
    [['e\u001bsc'], false],
    [['tab\there'], false],
    [['nel\u0085'], false],
    [['del\u007f'], false],
  ])('says every name of %j shows plain: %s (any dot after a dot, or slash after a slash, means check each)', (names, plain) => {
    expect(parsed(statRecords(...names.map((name): [string, string] => ['1', name]))).plainNames).toBe(plain)
  })

  it('never says every name shows plain when one does not', () => {
    const pieces = ['a', '/', '.', '..', './', '\t', '\u001b', '\u0085', 'é', '😀']
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }),
        (names) => {
          const listing = parsed(statRecords(...names.map((parts): [string, string] => ['1', parts.join('')])))
          const every = Array.from({ length: listing.count }, (_, i) =>
            isPlainName(listing.bytes, listing.nameStart[i]!, listing.nameEnd[i]!),
          )
          if (listing.plainNames) expect(every.every(Boolean)).toBe(true)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('finds the names whose bytes were replaced, not those that hold U+FFFD', () => {
    const listing = parsed(
      Buffer.concat([
        Buffer.from(statRecords(['1', './plain'], ['1', 'e\u001bsc'])),
        Buffer.from('1\tbad'),
        Buffer.from([0xff, 0]),
        Buffer.from(statRecords(['1', 'r\ufffd\ufffd'])),
        Buffer.from('1\tboth\ufffd'),
        Buffer.from([0xef, 0xbf, 0]),
        Buffer.from('1\tlast'),
        Buffer.from([0xfe, 0]),
      ]),
    )
    expect([...listing.replaced]).toEqual([2, 4, 5])
  })

  // Names with replaced bytes, a literal U+FFFD, both, and none, over chunk sizes that split every
  // U+FFFD and every bad byte from its record's NUL.
  const mixed = Buffer.concat([
    Buffer.from(statRecords(['1', 'a\ufffd'], ['2', 'plain'])),
    Buffer.from('3\tx'),
    Buffer.from([0xc3, 0]),
    Buffer.from(statRecords(['4', '\ufffd/in-dir'])),
    Buffer.from('5\t'),
    Buffer.from([0xf0, 0x9f, 0x98]),
    Buffer.from('\ufffd\0'),
    Buffer.from(statRecords(['6', 'z'])),
  ])
  it.each([1, 2, 3, 4, 5, 7, 11, 64])('finds them in chunks of %i bytes', (chunkBytes) => {
    const listing = parsed(mixed, chunkBytes)
    expect([...listing.replaced]).toEqual([2, 4])
    expect(files(listing).map((file) => file.name)).toEqual(['a\ufffd', 'plain', 'x\ufffd', '\ufffd/in-dir', '\ufffd\ufffd', 'z'])
  })

  it('finds them across many chunks, each parsed in turn', () => {
    const records: Buffer[] = []
    for (let i = 0; i < 3000; i += 1) {
      const name = i % 3 === 0 ? Buffer.from([0x66, 0xff]) : Buffer.from(i % 3 === 1 ? 'f\ufffd' : 'f')
      records.push(Buffer.from(`${i}\t`), name, Buffer.from('\0'))
    }
    const listing = parsed(Buffer.concat(records), 4096)
    expect(listing.replaced.size).toBe(1000)
    expect([...listing.replaced].every((file) => file % 3 === 0)).toBe(true)
  })

  it('leaves a replaced byte in a record that did not parse to the error it throws', () => {
    const parser = new GlobListingParser(1 << 20)
    parser.push(Buffer.concat([Buffer.from(statRecords(['1', 'ok'])), Buffer.from('x\t'), Buffer.from([0xff, 0])]))
    expect(() => parser.finish()).toThrow(/near "x\\t\ufffd\\u0000"/)
  })

  it('keeps, for a run stopped anywhere, exactly the records that arrived whole (docs/design.md#a-timeout-returns-what-was-found)', () => {
    const stdout = Buffer.from(statRecords(['1.5', 'a\tb'], ['-2', 'é\nx'], ['3', 'c']))
    const ends = [...stdout.entries()].filter(([, byte]) => byte === 0).map(([at]) => at + 1)
    for (let cut = 0; cut <= stdout.length; cut += 1) {
      for (const chunkBytes of [1, 4, 64]) {
        const parser = new GlobListingParser(1 << 20)
        for (let at = 0; at < cut; at += chunkBytes) parser.push(stdout.subarray(at, Math.min(cut, at + chunkBytes)))
        expect(
          files(parser.finishStopped()).map((f) => f.name),
          `cut at ${cut}`,
        ).toEqual(['a\tb', 'é\nx', 'c'].slice(0, ends.filter((end) => end <= cut).length))
      }
    }
  })

  it('still fails, for a stopped run, on a record before the cut that does not parse', () => {
    const parser = new GlobListingParser(1 << 20)
    parser.push(Buffer.from('x\tname\u00001\tcut'))
    expect(() => parser.finishStopped()).toThrow(/near "x\\tname/)
  })

  it('grows past the files its arrays first hold', () => {
    const listing = parsed(statRecords(...Array.from({ length: 5000 }, (_, i): [string, string] => ['1', `f${i}`])), 65_536)
    expect([listing.count, listing.bytes.toString('utf8', listing.nameStart[4999], listing.nameEnd[4999])]).toEqual([5000, 'f4999'])
  })

  it('grows again when later records are shorter than those it sized its arrays by', () => {
    // The first 4,096 records are long, so the arrays are sized for few; 30,000 short ones follow.
    // Every file's name and time are read back: the arrays are not zeroed, so an entry not copied
    // across a growth would hold whatever the memory held.
    const pairs = Array.from({ length: 34_096 }, (_, i): [string, string] => [
      `${1_700_000_000 + i}.${i % 10}`,
      i < 4096 ? `${'d'.repeat(200)}/f${i}` : `f${i}`,
    ])
    const expected = pairs.map(([time, name]) => ({
      name,
      seconds: Math.trunc(Number(time)),
      nanos: (Number(time.split('.')[1]) * 1e8) | 0,
    }))
    expect(files(parsed(statRecords(...pairs), 65_536))).toEqual(expected)
  })

  it.each([[{ stdout: 'no-tab-here\0' }, 'SEARCH_FAILED', /^glob could not parse the file listing near "no-tab-here\\u0000"/]])(
    'answers %j with %s',
    async (scripted, errorCode, content) => {
      const { glob } = await fakeHarness(() => scripted)
      const result = await glob({ pattern: '*', path: 'nope' })
      expect(result).toMatchObject({ isError: true, errorCode })
      expect(result.content).toMatch(content)
    },
  )
})

describe('order and determinism (docs/design.md#glob-lists-newest-first, docs/design.md#deterministic-pages)', () => {
  const tree = scratchDir('order')
  beforeAll(() => writeMtimeTree(tree))

  it('glob lists newest first, ties by path ascending', async () => {
    const result = await callTool(harness, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content).toBe(['b-new.txt', 'tie-a.txt', 'tie-b.txt', 'a-mid.txt', 'c-old.txt'].join('\n'))
  })

  it('glob breaks equal mtimes by path, so the capped page is the same set every time', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { globMaxResults: 7 } })
    const result = await callTool(capped, 'glob', { pattern: '*.log' }, tree)
    // mtime BASE+2 belongs to f2, f5, f8 of each dir: 18 files; the first 7 by path.
    expect(pageOf(result.content).split('\n')).toEqual([
      'many/d0/f2.log',
      'many/d0/f5.log',
      'many/d0/f8.log',
      'many/d1/f2.log',
      'many/d1/f5.log',
      'many/d1/f8.log',
      'many/d2/f2.log',
    ])
  })
})

describe('names and targets', () => {
  const tree = scratchDir('names')
  beforeAll(() => writeTree(tree, NAMES_TREE))

  it('glob lists a file name with a newline as one JSON-quoted item (docs/design.md#nul-separated-records)', async () => {
    const result = await callTool(harness, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content.split('\n').sort()).toEqual(['"line\\nbreak.txt"', 'plain.txt', 'sub/inner.txt'])
  })
})
