// The byte listing against the listing it replaced (reference-listing.ts), output for output: the page,
// the spill file and `value.paths` of generated listings fed in chunks of every size, and of a real
// tree listed by the real rg and find.
import { utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type BashExecutor } from '@dsh/core'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isProbe, MemorySpill } from '../../fake-bash.js'
import { agent, RG } from '../../fake-harness.js'
import { readSpill, scratchDirs, spillLocator, writeTree } from '../../real-harness.js'
import type { SpillOutcome } from '../../../src/engine/spill.js'
import { referenceGlobPage, referenceListing } from './reference-listing.js'

const RETRIEVAL_HINT = 'Use read with offset/limit, or grep this path to search within it.'

// Names a listing can hold: nested, `./`-prefixed, outside the root, controls, bidi and other
// invisible characters (and characters whose first bytes are theirs), bytes that are not UTF-8, U+FFFD, and characters whose UTF-8 and UTF-16 orders differ (U+E000 to U+FFFF against
// characters past U+FFFF).
const NAMES: (string | Buffer)[] = [
  'a.ts',
  './a.ts',
  './b/c.ts',
  './/x.ts',
  'a//b.ts',
  'b/../c.ts',
  '../up.ts',
  '/abs/x.ts',
  '..',
  'tab\there',
  'new\nline',
  'e\u001bsc',
  'nel\u0085',
  'rtl\u202etxt.exe',
  'z\u200bw',
  'tag\u{e0041}',
  'nb\u00a0sp',
  'em\u2014dash',
  Buffer.from([0x62, 0x61, 0x64, 0xff]),
  Buffer.from([0x62, 0x61, 0x64, 0xfe]),
  'r\ufffd',
  'd\ufffd/r.txt',
  // A literal U+FFFD beside a replaced byte, a U+FFFD cut short, and a cut three-byte character.
  Buffer.concat([Buffer.from('m\ufffd'), Buffer.from([0xff])]),
  Buffer.from([0x63, 0xef, 0xbf]),
  Buffer.from([0xe2, 0x82, 0x2e, 0x74]),
  '\ue000.txt',
  '\uffee.txt',
  '😀.txt',
  '𝄞.txt',
  'é.txt',
  'z.txt',
]
const MTIMES = [
  '1700000000',
  '1700000000.5',
  '1700000000.123456789',
  '1700000000.1234567891',
  '1700000001',
  '-1.25',
  '-1.5',
  '0',
  '-0',
  '12345678901234567890',
]
const BROKEN = ['1.\tx\0', '1.12345678901\tx\0', 'x\ty\0', '1\t\0', '1\tno terminator', '+1\tx\0', '--1\tx\0']

const listing = fc
  .record({
    records: fc.array(fc.tuple(fc.constantFrom(...MTIMES), fc.constantFrom(...NAMES)), { maxLength: 40 }),
    broken: fc.option(fc.constantFrom(...BROKEN), { freq: 8 }),
  })
  .map(({ records, broken }) =>
    Buffer.concat([
      ...records.map(([mtime, name]) => Buffer.concat([Buffer.from(`${mtime}\t`), Buffer.from(name), Buffer.from('\0')])),
      Buffer.from(broken ?? ''),
    ]),
  )

describe('the byte listing matches the one it replaced', () => {
  it('gives the same page, spill and paths for any listing, in chunks of any size', async () => {
    await fc.assert(
      fc.asyncProperty(
        listing,
        fc.constantFrom(1, 2, 5, 100, 20_000),
        fc.constantFrom(10, 60, 20_000),
        fc.constantFrom(1, 3, 7, 4096),
        fc.constantFrom(undefined, 'sub', 'q\nuoted', 'd\ufffd'),
        async (stdout, globMaxResults, inlineMaxBytes, chunk, root) => {
          const spill = new MemorySpill()
          const bash = new FakeBash((command) => (isProbe(command) ? {} : { stdout }))
          bash.stdoutChunkBytes = chunk
          const harness = await loadHarness({
            plugins: [toolFsSearch],
            services: { bash, spillStore: spill },
            config: { 'tool-fs-search': { rgPath: RG, globMaxResults, inlineMaxBytes } },
          })
          const args = { pattern: '**/*', ...(root === undefined ? {} : { path: root }) }
          const result = await harness.registry.execute('glob', args, { agent, callId: 'call-9' })
          let want
          try {
            want = referenceListing(stdout, {
              workdir: agent.session.header.cwd,
              root: root ?? '.',
              maxResults: globMaxResults,
              maxBytes: inlineMaxBytes,
            })
          } catch (error) {
            expect(result).toMatchObject({ isError: true, content: (error as Error).message })
            return
          }
          const locator = '/spill/sess-1/0001-glob-results.txt'
          const outcome = want.spill === undefined ? undefined : { saved: true as const, locator, retrievalHint: RETRIEVAL_HINT }
          expect(result.content).toBe(referenceGlobPage(want, outcome))
          expect(spill.saved.map((saved) => saved.text)).toEqual(want.spill === undefined ? [] : [want.spill])
          expect((result.value as { paths: string[] }).paths).toEqual(want.paths)
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('a listing past the raw output cap streams through sorted runs', () => {
  // Caps small enough that a listing of a few dozen records fills many runs; the store with and without
  // scratch files, and none at all; spills cut at a few bytes.
  it('gives the page, the spill and the paths the whole listing gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        listing,
        fc.constantFrom(1, 5, 100),
        fc.constantFrom(60, 20_000),
        fc.constantFrom(1, 7, 4096),
        fc.constantFrom(16, 64, 300),
        fc.constantFrom('scratch', 'no-scratch', 'no-store', 'no-session'),
        fc.constantFrom(undefined, 1, 40, 200),
        async (stdout, globMaxResults, inlineMaxBytes, chunk, rawOutputMaxBytes, store, spillMaxBytes) => {
          const spill = new MemorySpill()
          const spillStore =
            store === 'no-store'
              ? undefined
              : store === 'no-scratch'
                ? {
                    saveText: spill.saveText.bind(spill),
                    saveStream: spill.saveStream.bind(spill),
                    readText: spill.readText.bind(spill),
                    holds: spill.holds.bind(spill),
                    locate: spill.locate.bind(spill),
                  }
                : spill
          const bash = new FakeBash((command) => (isProbe(command) ? {} : { stdout }))
          bash.stdoutChunkBytes = chunk
          const harness = await loadHarness({
            plugins: [toolFsSearch],
            services: { bash, ...(spillStore === undefined ? {} : { spillStore }) },
            config: {
              'tool-fs-search': {
                rgPath: RG,
                globMaxResults,
                inlineMaxBytes,
                rawOutputMaxBytes,
                ...(spillMaxBytes === undefined ? {} : { spillMaxBytes }),
              },
            },
          })
          const session =
            store === 'no-session' ? { ...agent, session: { ...agent.session, header: { ...agent.session.header, id: '' } } } : agent
          const result = await harness.registry.execute('glob', { pattern: '**/*' }, { agent: session, callId: 'call-9' })
          let want
          try {
            want = referenceListing(stdout, {
              workdir: agent.session.header.cwd,
              root: '.',
              maxResults: globMaxResults,
              maxBytes: inlineMaxBytes,
            })
          } catch (error) {
            expect(result).toMatchObject({ isError: true, content: (error as Error).message })
            return
          }
          const value = result.value as { paths: string[]; pathsCut?: true }
          // A streamed listing's value holds its newest paths, as many as a page may show.
          expect(value.paths).toEqual(value.pathsCut === true ? want.paths.slice(0, globMaxResults) : want.paths)
          expect(value.pathsCut === true).toBe(value.paths.length < want.paths.length)
          if (want.spill === undefined) {
            expect(result.content).toBe(referenceGlobPage(want, undefined))
            expect(spill.saved).toEqual([])
            return
          }
          // The parser measures the output it keeps, where each invalid sequence became U+FFFD (3 bytes).
          const streamed = Buffer.byteLength(Buffer.from(stdout).toString('utf8')) * 2 >= rawOutputMaxBytes
          let outcome: SpillOutcome
          if (store === 'no-store') outcome = { saved: false, reason: 'no spill store is configured' }
          else if (store === 'no-session') outcome = { saved: false, reason: 'the call has no session to own the file' }
          else if (store === 'no-scratch' && streamed && spill.saved.length === 0)
            outcome = { saved: false, reason: 'the spill store gives no scratch file to hold a listing this large' }
          else {
            const lines = want.paths.map((shown) => `${shown}\n`)
            let kept = 0
            let bytes = 0
            for (const line of lines) {
              if (spillMaxBytes !== undefined && bytes + Buffer.byteLength(line) > spillMaxBytes) break
              bytes += Buffer.byteLength(line)
              kept += 1
            }
            const locator = '/spill/sess-1/0001-glob-results.txt'
            outcome = { saved: true, locator, retrievalHint: RETRIEVAL_HINT }
            if (kept < lines.length) outcome.part = { saved: kept, total: want.paths.length, unit: 'paths', maxBytes: spillMaxBytes! }
            expect(spill.saved.map((saved) => saved.text)).toEqual([lines.slice(0, kept).join('')])
          }
          expect(result.content).toBe(referenceGlobPage(want, outcome))
          expect(spill.scratches.every((scratch) => scratch.closed)).toBe(true)
        },
      ),
      { numRuns: 400 },
    )
  })
})

/** bash-local, with a copy of every chunk of stdout its sink was handed. */
function teeingBash(): { bash: BashExecutor; stdout: () => Buffer } {
  const local = bashLocal.createLocalBash({ killGraceMs: 200 })
  let chunks: Buffer[] = []
  return {
    bash: {
      resolve: (request) => local.resolve(request),
      run: (spec) => {
        chunks = []
        const sink = spec.stdoutSink
        if (sink === undefined) return local.run(spec)
        return local.run({
          ...spec,
          stdoutSink: (chunk) => {
            chunks.push(Buffer.from(chunk))
            sink(chunk)
          },
        })
      },
    },
    stdout: () => Buffer.concat(chunks),
  }
}

describe('the byte listing matches the one it replaced, over real rg and find', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('glob-equivalence')
  beforeAll(() => {
    const files: Record<string, string> = {
      'new\nline.txt': '',
      'e\u001bsc.txt': '',
      'rtl\u202etxt.exe': '',
      '\ue000.txt': '',
      '😀.txt': '',
      'é/ü.txt': '',
      'f\ufffd.txt': '',
      'd\ufffd/g\ufffd.txt': '',
    }
    for (let i = 0; i < 300; i += 1) files[`d${i % 9}/f${i}.ts`] = ''
    writeTree(tree, files)
    writeFileSync(Buffer.concat([Buffer.from(join(tree, 'bad')), Buffer.from([0xff])]), '')
    // Many files share a second, some share a nanosecond, a few are older than 1970.
    for (const [i, name] of Object.keys(files).entries()) {
      const seconds = i % 11 === 0 ? -100 - i : 1_700_000_000 + (i % 7)
      utimesSync(join(tree, name), seconds, seconds + (i % 3) * 0.25)
    }
  })

  it.each([
    { globMaxResults: 100 },
    { globMaxResults: 7, inlineMaxBytes: 90 },
    { globMaxResults: 100_000, inlineMaxBytes: 10_000_000 },
    // Past the raw output cap: sorted runs on spill-local's scratch file, merged.
    { globMaxResults: 7, rawOutputMaxBytes: 500 },
    { globMaxResults: 100_000, inlineMaxBytes: 10_000_000, rawOutputMaxBytes: 300 },
  ])('gives the same page and spill file with config %j', async (config) => {
    const { bash, stdout } = teeingBash()
    const harness = await loadHarness({
      plugins: [spillLocal, toolFsSearch],
      services: { bash },
      config: { 'spill-local': { root: scratchDir('spill') }, 'tool-fs-search': config },
    })
    const budget = toolFsSearch.Config.parse(config)
    for (const args of [{ pattern: '**/*' }, { pattern: '*.ts', path: 'd1' }, { pattern: '**/*.txt' }, { pattern: '*', path: 'd\ufffd' }]) {
      const result = await harness.registry.execute('glob', args, { agent: { session: { header: { id: 'eq', cwd: tree } } } })
      const want = referenceListing(stdout(), {
        workdir: tree,
        root: args.path ?? '.',
        maxResults: budget.globMaxResults,
        maxBytes: budget.inlineMaxBytes,
      })
      const locator = spillLocator(result.content)
      const outcome = locator === undefined ? undefined : { saved: true as const, locator, retrievalHint: RETRIEVAL_HINT }
      expect(result.content, JSON.stringify(args)).toBe(referenceGlobPage(want, outcome))
      expect(locator === undefined ? undefined : readSpill(locator)).toBe(want.spill)
    }
  })
})
