// Grep's count mode past the raw output cap, on the real rg: sorted runs on the scratch file give the
// page, offsets and spill the whole read gives, with and without a session, and a spill cut at spillMaxBytes.
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness, ToolResult } from '@dsh/core'
import { scratchDirs, writeTree } from '../real-harness.js'
import { answerWithSpill as answer, expectSameAnswer, loadClaudeHarness } from './real.js'

const scratchDir = scratchDirs()
const tree = scratchDir('cc-count-streamed')
let whole: Harness
let streamed: Harness
let cut: Harness

beforeAll(async () => {
  const files: Record<string, string> = {}
  for (let i = 0; i < 60; i += 1) files[`d${i % 4}/f${i}.ts`] = i % 7 === 0 ? 'nothing\n' : 'a needle\n'.repeat(1 + (i % 5))
  writeTree(tree, files)
  whole = await loadClaudeHarness(scratchDir('count-whole'))
  streamed = await loadClaudeHarness(scratchDir('count-streamed'), { rawOutputMaxBytes: 100 })
  cut = await loadClaudeHarness(scratchDir('count-cut'), { rawOutputMaxBytes: 100, spillMaxBytes: 600 })
})

function grep(harness: Harness, args: Record<string, unknown>, session: string): Promise<ToolResult> {
  return harness.registry.execute(
    'Grep',
    { pattern: 'needle', output_mode: 'count', ...args },
    { agent: { session: { header: { id: session, cwd: tree } } } },
  )
}

describe('count past the raw output cap', () => {
  it.each([{}, { head_limit: 5 }, { head_limit: 5, offset: 30 }, { offset: 49 }, { offset: 100 }, { head_limit: 0 }])(
    'answers %j as the whole read does',
    async (args) => {
      const want = await grep(whole, args, 'sess-w')
      const got = await grep(streamed, args, 'sess-s')
      expectSameAnswer(got, want)
    },
  )

  it('answers without a session from the entries it kept', async () => {
    const args = { head_limit: 5, offset: 30 }
    const want = await grep(whole, args, '')
    const got = await grep(streamed, args, '')
    expect(got.content).toBe(want.content)
    expect(got.content).toContain('could not be saved')
  })

  it('stops the spill at spillMaxBytes and says how many files it holds', async () => {
    const want = answer(await grep(whole, { head_limit: 5 }, 'sess-w'))
    const got = answer(await grep(cut, { head_limit: 5 }, 'sess-c'))
    expect(got.content).toMatch(
      /The first (\d+) of 51 files stored at: <spill>\. .* The rest is not saved: the complete result passes spillMaxBytes \(600 bytes\); narrow the search to see it\./,
    )
    const saved = Number(/The first (\d+) of/.exec(got.content)![1])
    const spill = got.spill!
    expect(Buffer.byteLength(spill)).toBeLessThanOrEqual(600)
    expect(saved).toBeGreaterThan(0)
    const wantLines = want.spill!.split('\n')
    // The heading, a blank line, the first files as the whole spill has them, then the note.
    expect(spill).toBe(
      `${wantLines.slice(0, 2 + saved).join('\n')}\n\n(This file holds the first ${saved} of 51 files: the complete result passes spillMaxBytes, 600 bytes.)\n`,
    )
    // Not one more file would have fit.
    expect(Buffer.byteLength(`${wantLines.slice(0, 3 + saved).join('\n')}\n`)).toBeGreaterThan(600 - 256)
  })
})
