import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, scratchDirs, SHAPED_TREE, writeTree } from '../../real-harness.js'

describe('glob arguments through the registry', () => {
  it.each([
    [{ pattern: '  ' }, 'pattern: pattern must not be blank'],
    [{ pattern: '!*.ts' }, 'pattern: pattern must not start with "!"'],
    [{ pattern: 'a\0b' }, 'pattern: pattern must not contain a NUL character'],
    [{ pattern: 'x'.repeat(5000) }, 'pattern: pattern is longer than 4096 characters'],
    [{ pattern: '*', extra: 1 }, 'Unrecognized key: "extra"'],
    [{ pattern: '**/../x' }, 'pattern may use ".." only before its first wildcard'],
  ])('glob rejects %j as an argument error', async (args, message) => {
    const { bash, glob } = await fakeHarness(() => ({}))
    const result = await glob(args)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain(message)
    expect(bash.searches()).toEqual([])
  })
})

describe('glob arguments through the real executor', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('glob-args')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, SHAPED_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('glob rejects a negated pattern as an argument error', async () => {
    expect(await callTool(harness, 'glob', { pattern: '!*.ts' }, tree)).toMatchObject({
      isError: true,
      errorCode: 'TOOL_INVALID_ARGUMENTS',
    })
  })

  it.each([['glob', { pattern: '*\uD800.txt' }]] as const)(
    '%s refuses %j: a lone surrogate would silently become U+FFFD',
    async (tool, args) => {
      const result = await callTool(harness, tool, args, tree)
      expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
      expect(result.content).toContain('lone surrogate')
    },
  )
})
