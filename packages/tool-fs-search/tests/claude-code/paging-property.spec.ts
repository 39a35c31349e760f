// The paging property against the real rg: for random trees, the pages by offset are the complete result, in order, once each.
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { scratchDirs, setMtime, writeTree } from '../real-harness.js'
import { callClaude, loadClaudeHarness } from './real.js'

const scratchDir = scratchDirs()
let harness: Harness
let small: Harness
beforeAll(async () => {
  harness = await loadClaudeHarness(scratchDir('spill'), { inlineMaxBytes: 10_000_000 })
  // A byte budget a few rows fill, so pages end on bytes as well as on head_limit.
  small = await loadClaudeHarness(scratchDir('spill-small'), { inlineMaxBytes: 60 })
})

/** A page's body: what lies between its heading and its first footer. */
function bodyOf(content: string): string {
  const parts = content.split('\n\n')
  return parts
    .slice(1)
    .filter((part) => !part.startsWith('('))
    .join('\n\n')
}

/** A content body as (file, row) entries: a header line names the file of the rows under it. */
function contentEntries(body: string): string[] {
  const entries: string[] = []
  let file = ''
  for (const line of body.split('\n')) {
    if (line === '' || line === '--') continue
    if (/^Line \d+[-:] /.test(line)) entries.push(`${file}|${line}`)
    else file = line
  }
  return entries
}

const tree = fc.array(
  fc.record({
    name: fc.constantFrom('a.txt', 'b.txt', 'c/d.txt', 'c/e.md', 'f.ts', 'g h.txt'),
    lines: fc.array(fc.constantFrom('hit', 'miss', 'HIT x', ''), { maxLength: 12 }),
    age: fc.integer({ min: 0, max: 3 }),
  }),
  { minLength: 1, maxLength: 6 },
)

describe('Grep paging', () => {
  it('gives the complete result, in order, once each, across pages by offset', async () => {
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.constantFrom('content', 'files_with_matches', 'count'),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 2 }),
        fc.boolean(),
        async (files, output_mode, head_limit, context, tight) => {
          const root = scratchDir('paging')
          for (const file of files) writeTree(root, { [file.name]: file.lines.map((line) => `${line}\n`).join('') })
          for (const file of files) setMtime(join(root, file.name), 1_700_000_000 + file.age)
          const args = { pattern: 'hit', '-i': true, output_mode, context }
          const whole = await callClaude(harness, 'Grep', { ...args, head_limit: 0 }, root)
          const { total } = whole.value as { total: number }
          const split = (content: string) =>
            output_mode === 'content'
              ? contentEntries(bodyOf(content))
              : bodyOf(content)
                  .split('\n')
                  .filter((l) => l !== '')
          const pages: string[] = []
          for (let offset = 0, calls = 0; offset < total; calls += 1) {
            expect(calls).toBeLessThanOrEqual(total)
            const page = await callClaude(tight ? small : harness, 'Grep', { ...args, head_limit, offset }, root)
            const { shown } = page.value as { shown: number }
            expect(shown).toBeGreaterThan(0)
            pages.push(...split(page.content))
            offset += shown
          }
          expect(pages).toEqual(split(whole.content))
        },
      ),
      { numRuns: 40 },
    )
  })
})
