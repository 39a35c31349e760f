import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { fakeHarness } from '../fake-harness.js'
import { callTool, canLock, loadRealHarness, nobodyHarness, scratchDirs, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('a missing target or one that cannot be entered, through the registry', () => {
  it.each([
    [
      { exitCode: 3, stderr: 'cd: ./.: Permission denied' },
      "grep cannot run in the working directory /work/repo: it exists but cannot be entered (permission denied for the executor's user). cd: ./.: Permission denied",
    ],
  ])('reports SEARCH_FAILED for %j', async (scripted, content) => {
    const { grep } = await fakeHarness(() => scripted)
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })

  it('reports a missing path as SEARCH_FAILED, quoting a name with a newline', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 4 }))
    expect(await grep({ pattern: 'x', path: 'gone\nname' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_FAILED',
      content: 'grep cannot search "gone\\nname": no such file or directory (or a directory above it cannot be entered). Check the path.',
    })
  })

  it('names the working directory when the directory to search is the one that cannot be entered', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 3, stderr: 'bash: line 1: cd: ./.: Permission denied' }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      "grep cannot run in the working directory /work/repo: it exists but cannot be entered (permission denied for the executor's user). bash: line 1: cd: ./.: Permission denied",
    )
  })
})

describe('failures name their real cause', () => {
  const tree = scratchDir('causes')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'needle\n' }))

  it.each(['gone\nname', 'gone\uD800name', '-'])('a missing path %j is SEARCH_FAILED for both tools, never "no matches"', async (path) => {
    for (const tool of ['grep', 'glob'] as const) {
      const result = await callTool(harness, tool, { pattern: 'needle', path }, tree)
      expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
      expect(result.content).toMatch(/no such file or directory/)
    }
  })
})

describe('rg failures are classified from its real stderr', () => {
  const tree = scratchDir('errors')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'other\n' }))

  it('grep reports SEARCH_FAILED for a missing path, never "no matches"', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: 'missing' }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(result.content).toContain('missing')
  })
})

describe.skipIf(!canLock)('permission failures say "permission"', () => {
  const tree = scratchDir('perm-causes')
  let nobody: Harness
  beforeAll(async () => {
    writeTree(tree, { 'closed/a.txt': 'needle\n', 'open/b.txt': 'needle\n' })
    nobody = await nobodyHarness(tree, { spillRoot, scratchDir })
    chmodSync(join(tree, 'closed'), 0o000)
  })

  it('glob and grep of a directory that cannot be entered say so, not "does not exist"', async () => {
    for (const tool of ['glob', 'grep'] as const) {
      const result = await callTool(nobody, tool, { pattern: 'needle', path: 'closed' }, tree)
      expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
      expect(result.content).not.toMatch(/does not exist/)
      expect(result.content).toMatch(/permission/i)
    }
  })
})
