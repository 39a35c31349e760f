// The byte pipeline against the pipeline it replaced (reference-pipeline.ts), output for output: the
// page, the spill file and `value.matches` of generated rg outputs fed in chunks of every size, and of
// generated trees searched by the real rg.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type BashExecutor, type Harness } from '@dsh/core'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isProbe, MemorySpill } from '../../fake-bash.js'
import { agent, RG } from '../../fake-harness.js'
import { readSpill, scratchDirs, spillLocator, writeTree } from '../../real-harness.js'
import { referenceGrep, type ReferenceCall, type ReferenceResult } from './reference-pipeline.js'

const RETRIEVAL_HINT = 'Use read with offset/limit, or grep this path to search within it.'

/** The reference's page, spill and matches for one stdout, or the error message it throws. */
function expected(stdout: Buffer, call: ReferenceCall): { result: ReferenceResult } | { error: string } {
  try {
    return { result: referenceGrep(stdout, call) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

// Paths a tree can hold: nested, `./`-prefixed and not, two that display the same, newlines, controls,
// bidi and other invisible characters (and a dash whose bytes start as theirs do), bytes that are not
// UTF-8, a literal U+FFFD and a name that decodes to it, names outside the search root.
const PATHS: (string | Buffer)[] = [
  'a.ts',
  './a.ts',
  './src/b.ts',
  'dup.ts',
  './dup.ts',
  './two\nlines.txt',
  './e\u001bsc\u0085.txt',
  './rtl\u202etxt.exe',
  './z\u200bw\u{e0041}.ts',
  './em\u2014dash.ts',
  Buffer.from([0x2e, 0x2f, 0x62, 0x61, 0x64, 0xff, 0x2e, 0x74]),
  Buffer.from([0x2e, 0x2f, 0x62, 0x61, 0x64, 0xfe, 0x2e, 0x74]),
  './r\ufffd.txt',
  Buffer.from([0x2e, 0x2f, 0x72, 0xff, 0x2e, 0x74, 0x78, 0x74]),
  './é/ü.ts',
  '../up.ts',
  '/abs/x.ts',
]
// Pieces of a line: words, multibyte characters, a tab, controls (ESC, BEL, NUL, C1 NEL, DEL), bidi
// controls, invisible characters (zero-width space, soft hyphen, BOM, a tag character, the line
// separator), characters whose first bytes are an invisible one's (NBSP, an em dash, U+110BE), U+FFFD,
// bytes that are not UTF-8, and text that looks like rg's preview marker.
const PIECES: (string | Buffer)[] = [
  'needle',
  ' ',
  'x'.repeat(30),
  'é',
  '€',
  '😀',
  '\t',
  '\u001b[31m',
  '\u0007',
  '\u0000',
  '\u0085',
  '\u007f',
  '\u202e',
  '\u2066',
  '\u200b',
  '\u00ad',
  '\ufeff',
  '\u{e0041}',
  '\u2028',
  '\u00a0',
  '\u2014',
  '\u{110be}',
  '\ufffd',
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf0, 0x9f, 0x98]),
  '[...',
  ']',
  '\r',
]
const MARKERS = ['', '', '', ' [... omitted end of long line]', ' [... 3 more matches]', ' [... 1 more match]', ' [... x more match]']
const NUMBERS = fc.oneof(fc.integer({ min: 1, max: 40 }).map(String), fc.constantFrom('007', '12345678901234567890', '0'))

const record = fc
  .record({
    path: fc.constantFrom(...PATHS),
    line: NUMBERS,
    text: fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }),
    marker: fc.constantFrom(...MARKERS),
    crlf: fc.boolean(),
  })
  .map(({ path, line, text, marker, crlf }) => ({
    path: Buffer.from(path),
    bytes: Buffer.concat([
      Buffer.from(path),
      Buffer.from(`\0${line}:`),
      ...text.map((piece) => Buffer.from(piece)),
      Buffer.from(`${marker}${crlf ? '\r' : ''}\n`),
    ]),
  }))
// rg prints a binary notice only where it can: for the file it was given (`./.`, the call's target, in
// a file search), or right after the records of the walked file it stopped in. The reference reads a
// notice as a whole line, so these are the notices whose paths hold no newline.
const notice = fc.boolean().map((stopped) => ({ notice: stopped ? ('stopped' as const) : ('given' as const) }))
const GIVEN_NOTICE = './.: binary file matches (found "\\0" byte around offset 5)\n'
const STOPPED_NOTICE = ': WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n'
// What breaks a parse: no digits, no colon, a record cut off, garbage.
const broken = fc.constantFrom('path\0x:broken\n', 'path\u00001 no colon\n', 'cut\u00001', 'garbage without a separator\n', 'p\0')
const output = fc
  .record({
    head: fc.constantFrom('D\0', 'D\0', 'D\0', 'F\0', 'X\0', ''),
    records: fc.array(fc.oneof({ weight: 12, arbitrary: record }, { weight: 1, arbitrary: notice }), { maxLength: 40 }),
    tail: fc.option(broken, { freq: 8 }),
    lastNewline: fc.boolean(),
  })
  .map(({ head, records, tail, lastNewline }) => {
    const parts: Buffer[] = [Buffer.from(head)]
    let last: Buffer | undefined
    for (const item of records) {
      if ('bytes' in item) {
        parts.push(item.bytes)
        last = item.path
      } else if (item.notice === 'given' && head === 'F\0') parts.push(Buffer.from(GIVEN_NOTICE))
      else if (item.notice === 'stopped' && last !== undefined && !last.includes(0x0a)) parts.push(last, Buffer.from(STOPPED_NOTICE))
    }
    let bytes = Buffer.concat([...parts, Buffer.from(tail ?? '')])
    if (!lastNewline && bytes.at(-1) === 0x0a) bytes = bytes.subarray(0, -1)
    return bytes
  })
const budgets = fc.record({
  grepMaxLineBytes: fc.constantFrom(1, 3, 7, 20, 2000),
  grepMaxMatches: fc.constantFrom(1, 2, 5, 250),
  inlineMaxBytes: fc.constantFrom(30, 200, 20_000),
  grepMaxMatchesPerFile: fc.constantFrom(1, 2, 50),
  // Small caps stream the records through the scratch file (docs/design.md#results-bigger-than-memory).
  rawOutputMaxBytes: fc.constantFrom(20_000_000, 20_000_000, 2, 40, 200),
})

/**
 * `value.matches` of a result: every match, or for a streamed one the matches of its first files
 * (marked `matchesCut`), which are the reference's first.
 */
function expectMatches(value: unknown, want: readonly unknown[]): void {
  const { matches, matchesCut } = value as { matches: unknown[]; matchesCut?: true }
  expect(matches).toEqual(matchesCut === true ? want.slice(0, matches.length) : want)
}

describe('the byte pipeline matches the one it replaced', () => {
  it('gives the same page, spill and matches for any rg output, in chunks of any size', async () => {
    await fc.assert(
      fc.asyncProperty(output, budgets, fc.constantFrom(1, 2, 3, 7, 64, 4096), fc.boolean(), async (stdout, config, chunk, unreadable) => {
        // An exit 2 naming an unreadable path: a directory search's matches stand, incomplete (a file's would fail).
        const partial = unreadable && stdout.subarray(0, 2).equals(Buffer.from('D\0'))
        const spill = new MemorySpill()
        const stderr = partial ? 'rg: ./locked: Permission denied (os error 13)\n' : ''
        const bash = new FakeBash((command) => (isProbe(command) ? {} : { stdout, exitCode: partial ? 2 : 0, stderr }))
        bash.stdoutChunkBytes = chunk
        const harness = await loadHarness({
          plugins: [toolFsSearch],
          services: { bash, spillStore: spill },
          config: { 'tool-fs-search': { rgPath: RG, ...config } },
        })
        const result = await harness.registry.execute('grep', { pattern: 'x' }, { agent, callId: 'call-7' })
        const want = expected(stdout, {
          workdir: agent.session.header.cwd,
          target: '.',
          maxLineBytes: config.grepMaxLineBytes,
          maxMatches: config.grepMaxMatches,
          maxBytes: config.inlineMaxBytes,
          maxPerFile: config.grepMaxMatchesPerFile,
          incomplete: { paths: partial ? ['./locked: Permission denied (os error 13)'] : [] },
          stderrCut: false,
        })
        if ('error' in want) {
          expect(result).toMatchObject({ isError: true, content: want.error })
          return
        }
        const ref = want.result
        const locator = '/spill/sess-1/0001-grep-results.txt'
        expect(result.content).toBe(ref.page(ref.spill === undefined ? undefined : { saved: true, locator, retrievalHint: RETRIEVAL_HINT }))
        expect(spill.saved.map((saved) => saved.text)).toEqual(ref.spill === undefined ? [] : [ref.spill])
        expect(result.value).toMatchObject({ total: ref.total, truncated: ref.spill !== undefined })
        expectMatches(result.value, ref.matches)
      }),
      { numRuns: 600 },
    )
  })
})

/** bash-local, with a copy of every chunk of stdout its sink was handed: what rg printed, for the reference. */
function teeingBash(): { bash: BashExecutor; stdout: () => Buffer; windows: () => string | undefined } {
  const local = bashLocal.createLocalBash({ killGraceMs: 200 })
  let chunks: Buffer[] = []
  let windows: Buffer[] | undefined
  return {
    bash: {
      resolve: (request) => local.resolve(request),
      run: (spec) => {
        // The window script (grep/windows.ts) runs after the search: its stdout is kept apart.
        const window = spec.command.includes(' --byte-offset ')
        if (window) windows = []
        else [chunks, windows] = [[], undefined]
        const into = window ? windows! : chunks
        const sink = spec.stdoutSink
        return local.run(
          sink === undefined
            ? spec
            : {
                ...spec,
                stdoutSink: (chunk) => {
                  into.push(Buffer.from(chunk))
                  sink(chunk)
                },
              },
        )
      },
    },
    stdout: () => Buffer.concat(chunks),
    windows: () => (windows === undefined ? undefined : Buffer.concat(windows).toString('latin1')),
  }
}

/** A small deterministic PRNG (mulberry32), so a failing tree is the same tree on the next run. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A tree that holds what trips a byte parser: CRLF files, long lines of 2-, 3- and 4-byte characters
 * (rg previews them, the budget cuts them), lines and names that are not UTF-8, control characters in
 * names and lines, a file past the per-file cap, a binary file, and a hundred files of a few matches.
 */
function writeEdgeTree(root: string, seed: number): void {
  const random = prng(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const words = ['alpha', 'needle', 'beta', 'é', '€', '😀', '\t', 'needle()', 'gamma']
  const line = (): string => Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick(words)).join(' ')
  const files: Record<string, string | Buffer> = {
    'crlf.txt': Array.from({ length: 5 }, (_, i) => `needle ${i}\r\n`).join(''),
    'long-2.txt': `needle ${'é'.repeat(1500)}\n`,
    'long-3.txt': `${'€'.repeat(700)} needle ${'€'.repeat(700)}\n`,
    'long-4.txt': `needle ${'😀'.repeat(600)}\n${'x'.repeat(3000)} needle\n`,
    'bytes.txt': Buffer.concat([Buffer.from('needle '), Buffer.from([0xc3, 0x28, 0xfe, 0xff]), Buffer.from(' end\nneedle \ufffd\n')]),
    // U+FFFD of a file's own: in a name, in a long line's window and head, beside replaced bytes.
    'long-\ufffd.txt': Buffer.concat([
      Buffer.from(`\ufffd${'x'.repeat(3000)} needle \ufffd `),
      Buffer.from([0xff]),
      Buffer.from(`\n${'y'.repeat(2500)} needle \ufffd\n`),
    ]),
    'bad/n\ufffd.txt': 'needle \ufffd\n',
    'controls.txt': 'needle \u001b[31mred\u001b[0m\rLine 9: fake\u0007\nneedle \u0085 \u007f\n',
    'esc\u001bname.txt': 'needle\n',
    // A name that shows backwards and a line that hides text, unless both are escaped.
    'rtl\u202etxt.exe': 'needle \u2067evil\u2069 \u200b\u{e0041}\u2014ok\n',
    'new\nline.txt': 'needle\n',
    'cr\rname.txt': 'needle\n',
    'caps/many.log': Array.from({ length: 60 }, (_, i) => `needle ${i}`).join('\n'),
    'blob.bin': Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(64), Buffer.from('needle\n')]),
  }
  for (let i = 0; i < 100; i += 1) {
    const lines = Array.from({ length: 1 + Math.floor(random() * 6) }, line)
    files[`deep/d${i % 7}/f${i}.ts`] = `${lines.join('\n')}\n`
  }
  writeTree(root, { ...files, 'bad/x.txt': 'needle\n' })
  // A name that is not UTF-8: writeTree takes names as strings.
  writeFileSync(Buffer.concat([Buffer.from(join(root, 'bad', 'n')), Buffer.from([0xff]), Buffer.from('.txt')]), 'needle\n')
}

describe('the byte pipeline matches the one it replaced, over real rg', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('equivalence')
  const spillRoot = scratchDir('spill')
  beforeAll(() => writeEdgeTree(tree, 0x5eed))

  const CONFIGS = [
    {},
    { grepMaxMatches: 7, inlineMaxBytes: 500, grepMaxLineBytes: 40, grepMaxMatchesPerFile: 3 },
    { grepMaxMatches: 100_000, inlineMaxBytes: 10_000_000, grepMaxLineBytes: 1 },
    // Streamed through spill-local's scratch file: the result passes what memory may hold.
    { rawOutputMaxBytes: 300 },
    { grepMaxMatches: 7, inlineMaxBytes: 500, grepMaxLineBytes: 40, grepMaxMatchesPerFile: 3, rawOutputMaxBytes: 1000 },
  ]
  const CALLS: Record<string, unknown>[] = [
    { pattern: 'needle' },
    { pattern: '.' },
    { pattern: 'needle', include: '*.txt' },
    { pattern: 'needle', path: 'long-4.txt' },
    { pattern: 'needle', path: 'blob.bin' },
    { pattern: 'é|€|😀' },
  ]

  it.each(CONFIGS)('gives the same page and spill file for each search with config %j', async (config) => {
    const { bash, stdout, windows } = teeingBash()
    const harness: Harness = await loadHarness({
      plugins: [spillLocal, toolFsSearch],
      services: { bash },
      config: { 'spill-local': { root: spillRoot }, 'tool-fs-search': config },
    })
    const budget = toolFsSearch.Config.parse(config)
    for (const args of CALLS) {
      const result = await harness.registry.execute('grep', args, { agent: { session: { header: { id: 'eq', cwd: tree } } } })
      const want = expected(stdout(), {
        workdir: tree,
        target: (args.path as string | undefined) ?? '.',
        maxLineBytes: budget.grepMaxLineBytes,
        maxMatches: budget.grepMaxMatches,
        maxBytes: budget.inlineMaxBytes,
        maxPerFile: budget.grepMaxMatchesPerFile,
        incomplete: { paths: [] },
        stderrCut: false,
        ...(windows() === undefined ? {} : { windows: windows()! }),
      })
      if ('error' in want) throw new Error(`the reference failed on ${JSON.stringify(args)}: ${want.error}`)
      const locator = spillLocator(result.content)
      const outcome = locator === undefined ? undefined : { saved: true as const, locator, retrievalHint: RETRIEVAL_HINT }
      expect(result.content, JSON.stringify(args)).toBe(want.result.page(outcome))
      expect(locator === undefined ? undefined : readSpill(locator), JSON.stringify(args)).toBe(want.result.spill)
    }
  })
})
