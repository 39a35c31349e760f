import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { callTool, canLock, nobodyHarness, scratchDirs, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')

describe.skipIf(!canLock)(
  'an unreadable directory makes a search incomplete, not failed (docs/design.md#exit-2-is-not-always-failure)',
  () => {
    const tree = scratchDir('locked')
    let locked: Harness
    beforeAll(async () => {
      writeTree(tree, { 'open/a.txt': 'needle\n', 'top.txt': 'needle\n', 'closed/hidden.txt': 'needle\n' })
      locked = await nobodyHarness(tree, { spillRoot, scratchDir })
      chmodSync(join(tree, 'closed'), 0o000)
    })

    it('grep keeps the readable matches and names the unreadable directory', async () => {
      const result = await callTool(locked, 'grep', { pattern: 'needle' }, tree)
      expect(result.isError).toBe(false)
      expect(result.content).toMatch(
        /^Found 2 matches\n\nopen\/a\.txt\nLine 1: needle\n\ntop\.txt\nLine 1: needle\n\n\(Search incomplete: rg could not read 1 path, .*closed.*\)$/,
      )
      expect(result.content).not.toContain('hidden.txt')
    })

    it('glob lists the readable files and says it is incomplete', async () => {
      const result = await callTool(locked, 'glob', { pattern: '*.txt' }, tree)
      expect(result.isError).toBe(false)
      const [page, note] = result.content.split('\n\n')
      expect(page!.split('\n').sort()).toEqual(['open/a.txt', 'top.txt'])
      expect(note).toMatch(/^\(Search incomplete: rg could not read 1 path, .*closed.*\)$/)
    })

    it('grep with no readable match still says it is incomplete', async () => {
      const result = await callTool(locked, 'grep', { pattern: 'absent' }, tree)
      expect(result.isError).toBe(false)
      expect(result.content).toMatch(/^No matches found\n\n\(Search incomplete: rg could not read 1 path, .*closed.*\)$/)
    })

    it('grep of the unreadable directory itself fails rather than report no matches', async () => {
      const result = await callTool(locked, 'grep', { pattern: 'needle', path: 'closed' }, tree)
      expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    })
  },
)
