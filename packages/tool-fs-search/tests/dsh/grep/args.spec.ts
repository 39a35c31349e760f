import { beforeAll, describe, expect, it } from 'vitest'
import { loadHarness, type Harness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../../real-harness.js'

describe('grep arguments through the registry', () => {
  it.each([
    [{ pattern: 'x', include: 'a,b' }, 'include: include must be one glob, not a comma-separated list'],
    [{ pattern: 'x', include: '!*.js' }, 'include: include must be one positive glob'],
    [{ pattern: 'x', path: '' }, 'path: path must not be blank'],
    [{ pattern: '' }, 'pattern: pattern must not be empty'],
    [
      { pattern: 'x', include: 'packages/*/**' },
      'include "packages/*/**" ends in "**", so rg would also search the ignored directories it matches; name the files (e.g. "packages/*/**/*.ts")',
    ],
    [{ pattern: 'x', include: '**/src/**/*' }, 'ends in "**"'],
    [{ pattern: 'x', include: '/abs/*.ts' }, 'include is matched under the search path, so it must be relative'],
    [{ pattern: 'x', include: './../x/*.ts' }, 'include must not contain ".."'],
    [{ pattern: 'x'.repeat(9000) }, 'pattern: pattern is longer than 8192 characters'],
    [{ pattern: 42 }, 'pattern: Invalid input: expected string'],
  ])('grep rejects %j as an argument error', async (args, message) => {
    const { bash, grep } = await fakeHarness(() => ({}))
    const result = await grep(args)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain(message)
    expect(bash.searches()).toEqual([])
  })

  it.each(['  ', '\t', ' \n '])('refuses the blank pattern %j, saying how to search for spaces', async (pattern) => {
    const { bash } = await fakeHarness(() => ({ exitCode: 1, stdout: 'D\0' }))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    const result = await harness.registry.execute('grep', { pattern })
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain('pattern must not be blank; to search for spaces, use a character class such as "[ ]" or "\\s"')
  })

  it('accepts a pattern of a space class, and includes that narrow or filter files', async () => {
    const { bash } = await fakeHarness(() => ({ exitCode: 1, stdout: 'D\0' }))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    for (const args of [
      { pattern: '[ ]' },
      { pattern: ' x ' },
      { pattern: 'x', include: 'src/**' },
      { pattern: 'x', include: '.git/**' },
      { pattern: 'x', include: 'a/*' },
      { pattern: 'x', include: '**' },
    ]) {
      expect(await harness.registry.execute('grep', args)).toMatchObject({ isError: false })
    }
  })

  it('accepts commas inside braces and unbalanced closing braces', async () => {
    const { bash } = await fakeHarness(() => ({ exitCode: 1, stdout: 'D\0' }))
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    expect(await harness.registry.execute('grep', { pattern: 'x', include: '*.{ts,tsx}' })).toMatchObject({ isError: false })
    expect(await harness.registry.execute('grep', { pattern: 'x', include: 'a}b' })).toMatchObject({ isError: false })
  })

  it.each([
    [
      './!src/*.ts',
      'include must not start with "!" (after "./"): a leading "!" would negate the glob; to search a directory named "!src", pass it as path',
    ],
    ['*.ts/', 'include "*.ts/" ends in "/", so it names directories, not files'],
    ['a/*/', 'include "a/*/" ends in "/"'],
    ['*\uD800.ts', 'include must be valid Unicode: it holds a lone surrogate (U+D800), which would be searched as U+FFFD'],
  ])('refuses the include %j as an argument error', async (include, message) => {
    const { bash, grep } = await fakeHarness(() => ({}))
    const result = await grep({ pattern: 'x', include })
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain(message)
    expect(bash.searches()).toEqual([])
  })

  it.each(['needle \uD800', '\uDFFF'])('refuses the pattern %j: a lone surrogate would silently become U+FFFD', async (pattern) => {
    const { grep } = await fakeHarness(() => ({}))
    const result = await grep({ pattern })
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain('pattern must be valid Unicode: it holds a lone surrogate')
  })

  it('accepts a pattern with a surrogate pair (an astral character)', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 1, stdout: 'D\0' }))
    expect(await grep({ pattern: 'smile 😀' })).toMatchObject({ isError: false })
  })
})

describe('grep arguments through the real executor', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('grep-args')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, { 'a.txt': 'needle \ufffd\n' })
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it.each(['a,b', '*.js,*.ts', '!*.js'])('include %j is an argument error', async (include) => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
  })

  it.each([
    ['grep', { pattern: 'needle \uD800' }],
    ['grep', { pattern: 'needle', include: '*\uDC00.txt' }],
  ] as const)('%s refuses %j: a lone surrogate would silently become U+FFFD', async (tool, args) => {
    const result = await callTool(harness, tool, args, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain('lone surrogate')
  })
})
