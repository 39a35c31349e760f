// Grep's files_with_matches past the raw output cap, on the real rg: sorted runs on the scratch file
// give the page, offsets and the spill that the whole list gives, with and without a session.
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type ToolResult } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { MemorySpill } from '../fake-bash.js'
import { scratchDirs, setMtime, writeTree } from '../real-harness.js'
import { expectSameAnswer, loadClaudeHarness } from './real.js'

const scratchDir = scratchDirs()
const tree = scratchDir('cc-files-streamed')
let whole: Harness
let streamed: Harness

beforeAll(async () => {
  const files: Record<string, string> = {}
  for (let i = 0; i < 60; i += 1) files[`d${i % 4}/f${i}.ts`] = i % 7 === 0 ? 'nothing\n' : 'a needle\n'
  writeTree(tree, files)
  // Some share a second, so names break ties.
  for (const [i, name] of Object.keys(files).entries()) setMtime(join(tree, name), 1_700_000_000 + (i % 9) * 10)
  whole = await loadClaudeHarness(scratchDir('spill-whole'))
  streamed = await loadClaudeHarness(scratchDir('spill-streamed'), { rawOutputMaxBytes: 200 })
})

function grep(harness: Harness, args: Record<string, unknown>, session: string): Promise<ToolResult> {
  return harness.registry.execute('Grep', { pattern: 'needle', ...args }, { agent: { session: { header: { id: session, cwd: tree } } } })
}

describe('files_with_matches past the raw output cap', () => {
  it.each([{}, { head_limit: 5 }, { head_limit: 5, offset: 30 }, { offset: 49 }, { offset: 100 }, { head_limit: 0 }])(
    'answers %j as the whole list does',
    async (args) => {
      const want = await grep(whole, args, 'sess-w')
      const got = await grep(streamed, args, 'sess-s')
      expectSameAnswer(got, want)
    },
  )

  it.each([{ head_limit: 5 }, { head_limit: 5, offset: 30 }])('answers %j without a session from the files it kept', async (args) => {
    const want = await grep(whole, args, '')
    const got = await grep(streamed, args, '')
    expect(got.content).toBe(want.content)
    expect(got.content).toContain('could not be saved')
  })
})

describe('files_with_matches past the raw output cap, with a store that keeps no scratch file', () => {
  it('pages from the files it kept and says the complete result cannot be saved', async () => {
    const store = new MemorySpill()
    Object.defineProperty(store, 'openScratch', { value: undefined })
    const harness = await loadHarness({
      plugins: [bashLocal, toolFsSearch],
      services: { spillStore: store },
      config: { 'tool-fs-search': { profile: 'claude-code', rawOutputMaxBytes: 200 } },
    })
    const args = { head_limit: 5, offset: 30 }
    const want = await grep(whole, args, '')
    const got = await grep(harness, args, 'sess-n')
    expect(String(got.content).split('\n\n(')[0]).toBe(String(want.content).split('\n\n(')[0])
    expect(got.content).toContain(
      'The complete result could not be saved (saving failed: the result is larger than memory and the spill store keeps no scratch file)',
    )
    expect(store.saved).toEqual([])
  })
})
