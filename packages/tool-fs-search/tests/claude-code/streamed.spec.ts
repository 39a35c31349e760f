// Claude Code's Grep past rawOutputMaxBytes (docs/design.md#results-bigger-than-memory): content pages at
// any offset and the spill are those of a search under the cap, with real rg and spill-local.
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { MemorySpill, rgLines } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { scratchDirs, writeTree } from '../real-harness.js'
import { callClaude, loadClaudeHarness } from './real.js'

const scratchDir = scratchDirs()
const tree = scratchDir('tree')
let whole: Harness
let streamed: Harness
beforeAll(async () => {
  const files: Record<string, string> = {}
  for (let f = 0; f < 30; f += 1) {
    files[`d${f % 3}/f${String(f).padStart(2, '0')}.txt`] = Array.from({ length: 25 }, (_, l) =>
      l % 4 === 3 ? `other ${l}` : `hit ${f} ${l} ${l % 9 === 0 ? '\u001b[31m' : ''}${'y'.repeat(l * 7)}`,
    ).join('\n')
  }
  writeTree(tree, { ...files, 'long.txt': `hit ${'x'.repeat(5000)} hit\n` })
  whole = await loadClaudeHarness(scratchDir('whole'), { inlineMaxBytes: 3000 })
  streamed = await loadClaudeHarness(scratchDir('streamed'), { inlineMaxBytes: 3000, rawOutputMaxBytes: 600 })
})

/** The page with its locator blanked, and the spill it names. */
async function answer(harness: Harness, args: Record<string, unknown>): Promise<{ page: string; spill: string | undefined }> {
  const result = await callClaude(harness, 'Grep', args, tree)
  expect(result.isError).toBe(false)
  // Claude Code's names: `Use Read with offset/limit`.
  const locator = /stored at: (\S+)\. Use Read/.exec(result.content)?.[1]
  return {
    page: result.content.replace(/stored at: \S+\. Use Read/, 'stored at: <spill>. Use Read'),
    spill: locator === undefined ? undefined : readFileSync(locator, 'utf8'),
  }
}

describe('Grep content past rawOutputMaxBytes', () => {
  it('gives the page at any offset and the spill of a search under the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 620 }),
        fc.constantFrom(0, 1, 7, 250),
        fc.constantFrom(0, 1),
        fc.boolean(),
        async (offset, head_limit, context, numbered) => {
          const args = { pattern: 'hit', output_mode: 'content', offset, head_limit, '-C': context, '-n': numbered }
          expect(await answer(streamed, args)).toEqual(await answer(whole, args))
        },
      ),
      { numRuns: 25 },
    )
  })

  it('pages from far into the result without the rows before it', async () => {
    const { page } = await answer(streamed, { pattern: 'hit', output_mode: 'content', offset: 560, head_limit: 3 })
    expect(page).toMatch(/^Found 571 matching lines in 31 files\n\nd2\/f29\.txt\n/)
    expect(page).toContain('(Showing lines 561-563 of 571; to see more, call again with offset: 563.')
  })

  it('without a session, keeps the rows up to the page in memory and gives the page a search under the cap gives', async () => {
    const call = (harness: Harness) =>
      harness.registry.execute(
        'Grep',
        { pattern: 'hit', output_mode: 'content', offset: 300, head_limit: 5 },
        { agent: { session: { header: { id: '', cwd: tree } } } },
      )
    const got = await call(streamed)
    expect(got.content).toBe((await call(whole)).content)
    expect(got.content).toContain(
      '(Showing lines 301-305 of 571; to see more, call again with offset: 305. The complete result could not be saved',
    )
  })

  it('streams a search of one file', async () => {
    const args = { pattern: 'hit|y', output_mode: 'content', path: 'd0/f27.txt', offset: 3, head_limit: 2 }
    const [got, want] = [await answer(streamed, args), await answer(whole, args)]
    expect(got).toEqual(want)
    expect(got.page).toMatch(/^Found 19 matching lines in 1 file\n\nd0\/f27\.txt\n/)
  })
})

/** Records of `files` files of `lines` matches each, as rg prints them, in reverse path order. */
function manyRecords(files: number, lines: number): string {
  const records: [string, number, string][] = []
  for (let f = files - 1; f >= 0; f -= 1)
    for (let l = 1; l <= lines; l += 1) records.push([`./f${String(f).padStart(3, '0')}.ts`, l, `hit ${f}`])
  return rgLines(...records)
}

describe('Grep content past rawOutputMaxBytes, with fakes', () => {
  const config = { profile: 'claude-code', rawOutputMaxBytes: 200 }
  const args = { pattern: 'hit', output_mode: 'content', offset: 41, head_limit: 2 }

  it('says the complete result cannot be saved when the store gives no scratch file and records left memory', async () => {
    const store = new MemorySpill()
    Object.defineProperty(store, 'openScratch', { value: undefined })
    const { harness } = await fakeHarness(() => ({ stdout: manyRecords(30, 20) }), config, store)
    const result = await harness.registry.execute('Grep', args, { agent: { session: { header: { id: 's', cwd: '/work/repo' } } } })
    expect(result.content).toMatch(/^Found 600 matching lines in 30 files\n\nf002\.ts\nLine 2: hit 2\nLine 3: hit 2\n/)
    expect(result.content).toContain(
      'The complete result could not be saved (saving failed: the result is larger than memory and the spill store keeps no scratch file)',
    )
  })

  it.each([
    ['a store', new MemorySpill(), 'the call has no session to own the file'],
    ['no store', undefined, 'no spill store is configured'],
  ])('pages from memory without a session, with %s', async (_case, store, reason) => {
    const { harness } = await fakeHarness(() => ({ stdout: manyRecords(30, 20) }), config, store)
    const result = await harness.registry.execute('Grep', args, {})
    expect(result.content).toMatch(/^Found 600 matching lines in 30 files\n\nf002\.ts\nLine 2: hit 2\nLine 3: hit 2\n/)
    expect(result.content).toContain(`The complete result could not be saved (${reason})`)
  })
})
