// A timeout returns what was found, against the real rg and bash-local: an rg that never finishes, and
// an executor whose limit runs out once the output is out, so what was found is known exactly.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type ToolResult } from '@dsh/core'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { writeBlockingRg } from '../../../../test-support/blocking-rg.js'
import { processesMentioning, readSpill, scratchDirs, setMtime, spillLocator, writeTree } from '../real-harness.js'
import { countByte, stopWhenStreamed } from '../stop-when-streamed.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
const tree = scratchDir('timeout-tree')
const NUL = 0x00
const FILES = 25
// What a killed rg leaves in its pipe: part of one more record, never finished. Valid as the head of
// a grep record (path NUL line-number) and of a count record (path NUL count) alike.
const CUT = Buffer.from('./zz-cut.txt\u00001')
for (let i = 0; i < FILES; i += 1) {
  const name = `f${String(i).padStart(2, '0')}.txt`
  writeTree(tree, { [name]: 'needle one\nmiss\nneedle two\n' })
  setMtime(join(tree, name), 1_700_000_000 + i)
}
// Written as the file loads, not before its tests: the table of modes below names them.
const realRg = (await import('@vscode/ripgrep')).rgPath
const cutting = writeBlockingRg(scratchDir('cutting-rg'), realRg, { tail: CUT })
const listing = writeBlockingRg(scratchDir('listing-rg'), realRg)

/** A harness over bash-local whose searches stop, as at a timeout, once `ready` holds for their output. */
function stoppingHarness(rg: string, ready: (streamed: Buffer) => boolean, search: Record<string, unknown> = {}): Promise<Harness> {
  return loadHarness({
    plugins: [spillLocal, toolFsSearch],
    services: { bash: stopWhenStreamed(bashLocal.createLocalBash({ killGraceMs: 200 }), rg, ready) },
    config: { 'spill-local': { root: spillRoot }, 'tool-fs-search': { rgPath: rg, ...search } },
    logger: { warn: () => undefined, info: () => undefined },
  })
}

function call(harness: Harness, tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
  return harness.registry.execute(tool, args, { agent: { session: { header: { id: 'sess-timeout', cwd: tree } } }, ...options })
}

const cutOff = (streamed: Buffer): boolean => streamed.length >= CUT.length && streamed.subarray(-CUT.length).equals(CUT)
const newestFirst = Array.from({ length: FILES }, (_, i) => `f${String(FILES - 1 - i).padStart(2, '0')}.txt`)

describe('a search stopped by its timeout returns what rg printed', () => {
  it('grep: every match rg printed, paged and spilled, the record it was cut off in dropped, nothing left running', async () => {
    const harness = await stoppingHarness(cutting, cutOff, { grepMaxMatches: 4, grepMaxMatchesPerFile: 2 })
    const result = await call(harness, 'grep', { pattern: 'needle' })
    expect(processesMentioning(cutting)).toEqual([])
    expect(result).toMatchObject({ isError: false, value: { total: 50, truncated: true }, meta: { total: 50, incomplete: true } })
    expect(result.content).toMatch(
      /^Found 4 of 50 matches\n\nf00\.txt\nLine 1: needle one\nLine 3: needle two\n\nf01\.txt\nLine 1: needle one\nLine 3: needle two\n\n\(Stopped after 30 s, the search's time limit: partial result, 50 matches in 25 files so far;/,
    )
    const spilled = readSpill(spillLocator(result.content)!)
    expect(spilled).toMatch(/^Found 50 matches\n\nf00\.txt\n[^]*\nf24\.txt\nLine 1: needle one\nLine 3: needle two\n\n\(Stopped after 30 s/)
    expect(`${result.content}${spilled}`).not.toContain('zz-cut')
  })

  it('glob: the files listed so far, sorted newest first and paged as usual', async () => {
    const harness = await stoppingHarness(listing, (streamed) => countByte(streamed, NUL) === FILES, { globMaxResults: 3 })
    const result = await call(harness, 'glob', { pattern: '*.txt' })
    expect(processesMentioning(listing)).toEqual([])
    expect(result.content).toMatch(
      /^f24\.txt\nf23\.txt\nf22\.txt\n\n\(Stopped after 30 s, the search's time limit: partial result, 25 files so far; [^\n]*\n\n\(Showing 3 of 25 paths, newest first\./,
    )
    expect(result.value).toMatchObject({ paths: newestFirst, total: 25, truncated: true })
    expect(readSpill(spillLocator(result.content)!)).toBe(`${newestFirst.join('\n')}\n`)
    expect(harness.registry.present('glob', { pattern: '*.txt' }, result)).toMatchObject({ truncated: true, incomplete: true })
  })

  it('Glob of the claude-code profile, the same way', async () => {
    const harness = await stoppingHarness(listing, (streamed) => countByte(streamed, NUL) === FILES, { profile: 'claude-code' })
    const result = await call(harness, 'Glob', { pattern: '*.txt' })
    expect(result).toMatchObject({ isError: false, value: { paths: newestFirst } })
    expect(result.content).toContain('partial result, 25 files so far;')
  })

  it.each([
    ['content', cutting, cutOff, 'Found 50 matching lines in 25 files\n\nf00.txt\nLine 1: needle one\nLine 3: needle two\n\nf01.txt\n'],
    ['count', cutting, cutOff, 'Found 50 matching lines in 25 files\n\nf00.txt:2\nf01.txt:2\n'],
    // The script's `D` head and one NUL a file.
    [
      'files_with_matches',
      listing,
      (streamed: Buffer) => countByte(streamed, NUL) === FILES + 1,
      'Found 25 files, newest modified first\n\nf24.txt\nf23.txt\n',
    ],
  ] as const)('Grep of the claude-code profile, %s mode', async (output_mode, rg, ready, head) => {
    const harness = await stoppingHarness(rg, ready, { profile: 'claude-code' })
    const result = await call(harness, 'Grep', { pattern: 'needle', output_mode })
    expect(processesMentioning(rg)).toEqual([])
    expect(result.content.startsWith(head)).toBe(true)
    expect(result.content).toMatch(
      /\n\n\(Stopped after 30 s, the search's time limit: partial result, (50 matching lines in )?25 files so far;/,
    )
    expect(result.content).not.toContain('zz-cut')
    expect(result.value).toMatchObject({ mode: output_mode, total: output_mode === 'content' ? 50 : 25 })
  })

  it("a caller's cancellation of a search that will not finish is still an abort, not a partial result, with nothing left running", async () => {
    const harness = await stoppingHarness(listing, () => false)
    const controller = new AbortController()
    const pending = call(harness, 'grep', { pattern: 'needle' }, { signal: controller.signal })
    // Cancelled while rg runs or waits: either way the search has not finished.
    while (processesMentioning(listing).length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    // SEARCH_ABORTED, or TOOL_ABORTED when killing rg's group outlasts the registry's 50 ms settle grace, as on a busy machine.
    expect(await pending).toMatchObject({
      isError: true,
      errorCode: expect.stringMatching(/^(SEARCH|TOOL)_ABORTED$/),
      content: expect.stringMatching(/was cancelled/),
    })
    // The registry may answer before the group is gone: the kill is under way, not done.
    const gone = Date.now() + 10_000
    while (processesMentioning(listing).length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(processesMentioning(listing)).toEqual([])
  })
})
