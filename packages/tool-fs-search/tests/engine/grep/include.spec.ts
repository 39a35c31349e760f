import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { planInclude } from '../../../src/engine/grep/include.js'
import { callTool, loadRealHarness, scratchDirs, SHAPED_TREE, writeTree } from '../../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('planInclude', () => {
  it.each([
    [undefined, { args: [] }],
    ['*.ts', { args: ['--type-add=dshinclude:*.ts', '--type=dshinclude'] }],
    ['**/*.{ts,tsx}', { args: ['--type-add=dshinclude:*.{ts,tsx}', '--type=dshinclude'] }],
    ['./**/*.js', { args: ['--type-add=dshinclude:*.js', '--type=dshinclude'] }],
    ['**', { args: [] }],
    ['**/*', { args: [] }],
    ['**/**/*', { args: [] }],
    ['*', { args: [] }],
    ['src/**', { args: [], subdir: 'src' }],
    ['./a/b/**/*', { args: [], subdir: 'a/b' }],
    ['src/**/*.ts', { args: ['--glob=src/**/*.ts'] }],
    ['*/src/**', { args: ['--glob=*/src/**'] }],
    ['a:b*', { args: ['--glob=a:b*'] }],
    ['.git/**', { args: ['--glob=.git/**'] }],
    ['pkg/.hg/**/*', { args: ['--glob=pkg/.hg/**/*'] }],
  ])('plans include %j so it cannot re-open ignored trees', (include, plan) => {
    expect(planInclude(include)).toEqual(plan)
  })

  it.each([
    ['src', { args: ['--type-add=dshinclude:src', '--type=dshinclude'], name: 'src' }],
    ['src/', { args: [], subdir: 'src' }],
    ['./src/lib/', { args: [], subdir: 'src/lib' }],
    ['src/./a/*.ts', { args: ['--glob=src/a/*.ts'] }],
    ['src//a/**', { args: [], subdir: 'src/a' }],
    ['.git', { args: ['--type-add=dshinclude:.git', '--type=dshinclude'] }],
  ])('plans include %j as a user means it', (include, plan) => {
    expect(planInclude(include)).toEqual(plan)
  })
})

describe('broad include never re-opens ignored trees (docs/design.md#include-must-not-reopen-ignored-trees)', () => {
  const tree = scratchDir('include')
  beforeAll(() => {
    writeTree(tree, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': 'node_modules/\n',
      'node_modules/dep/index.js': 'needle\n',
      'node_modules/dep/types.ts': 'needle\n',
      'src/node_modules/inner.js': 'needle\n',
      'src/app.js': 'needle\n',
      'src/app.ts': 'needle\n',
      'README.md': 'needle\n',
    })
  })

  it.each(['**', '**/*', '*', './**', '**/*.js', '*.js'])('include %j leaves node_modules unsearched', async (include) => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include }, tree)
    expect(result.isError).toBe(false)
    expect(result.content).not.toContain('node_modules')
  })

  it('include "*.js" still finds .js files outside the ignored trees', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '*.js' }, tree)
    expect(result.content).toBe('Found 1 match\n\nsrc/app.js\nLine 1: needle')
  })

  it('include "*.{js,ts}" takes brace alternation with commas', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '*.{js,ts}' }, tree)
    expect(result.content).toBe('Found 2 matches\n\nsrc/app.js\nLine 1: needle\n\nsrc/app.ts\nLine 1: needle')
  })

  it('include "src/**" leaves src/node_modules unsearched', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: 'src/**' }, tree)
    expect(result.content).toBe('Found 2 matches\n\nsrc/app.js\nLine 1: needle\n\nsrc/app.ts\nLine 1: needle')
  })
})

describe('a path-shaped include is matched from the path given (docs/design.md#globs-run-from-the-search-root)', () => {
  const tree = scratchDir('shaped')
  beforeAll(() => writeTree(tree, SHAPED_TREE))

  it('grep include "src/**/*.ts" matches from the working directory', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: 'src/**/*.ts' }, join(tree, 'pkg'))
    expect(result.content).toBe('Found 2 matches\n\nsrc/a.ts\nLine 1: needle\n\nsrc/deep/b.ts\nLine 1: needle')
  })

  it('grep include "src/**/*.ts" matches from the path given', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: 'pkg', include: 'src/**/*.ts' }, tree)
    expect(result.content).toBe('Found 2 matches\n\npkg/src/a.ts\nLine 1: needle\n\npkg/src/deep/b.ts\nLine 1: needle')
  })
})

describe('include means what a user means, or is refused', () => {
  const tree = scratchDir('include-shapes')
  beforeAll(() => {
    writeTree(tree, {
      '!src/x.ts': 'needle\n',
      'other/y.ts': 'needle\n',
      'src/a/z.ts': 'needle\n',
      'src/top.ts': 'needle\n',
      'f.ts': 'needle\n',
    })
  })
  const srcMatches = 'Found 2 matches\n\nsrc/a/z.ts\nLine 1: needle\n\nsrc/top.ts\nLine 1: needle'

  it('include "./!src/*.ts" is refused: without "./" its "!" would negate the glob', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: './!src/*.ts' }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain('pass it as path')
  })

  it.each(['src', 'src/', './src/'])('include %j searches the directory src', async (include) => {
    expect(await callTool(harness, 'grep', { pattern: 'needle', include }, tree)).toMatchObject({ isError: false, content: srcMatches })
  })

  it('include "src/./a/*.ts" is read as "src/a/*.ts"', async () => {
    expect((await callTool(harness, 'grep', { pattern: 'needle', include: 'src/./a/*.ts' }, tree)).content).toBe(
      'Found 1 match\n\nsrc/a/z.ts\nLine 1: needle',
    )
  })

  it('include "*.ts/" is an argument error that says what to send instead', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include: '*.ts/' }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain('ends in "/"')
  })

  it.each(['*.js', '*.ts'])('include %j with a file as path is refused, never silently ignored', async (include) => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: 'f.ts', include }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(result.content).toContain('path f.ts is a file')
  })
})
