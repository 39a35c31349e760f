import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { planGlob } from '../../../src/dsh/glob/pattern.js'
import { callTool, loadRealHarness, scratchDirs, SHAPED_TREE, writeTree } from '../../real-harness.js'

describe('planGlob (docs/design.md#patterns-models-send)', () => {
  it.each([
    ['**/*.ts', undefined, { root: '.', glob: '**/*.ts' }],
    ['src/**/*.ts', 'pkg', { root: 'pkg', glob: 'src/**/*.ts' }],
    ['./src/*.ts', undefined, { root: 'src', glob: '/*.ts' }],
    ['./**/*.ts', 'pkg', { root: 'pkg', glob: '/**/*.ts' }],
    ['../sibling/*.ts', 'pkg', { root: 'pkg/../sibling', glob: '/*.ts' }],
    ['../**', 'missing/', { root: 'missing/..', glob: '/**' }],
    ['../*.ts', undefined, { root: '..', glob: '/*.ts' }],
    ['/abs/dir/**/*.ts', 'ignored', { root: '/abs/dir', glob: '/**/*.ts' }],
    ['/abs/file.ts', undefined, { root: '/abs', glob: '/file.ts' }],
    ['/*.ts', undefined, { root: '/', glob: '/*.ts' }],
    ['./', undefined, { root: '.', glob: '/**' }],
  ])('plans %j from %j as %j', (pattern, path, plan) => {
    expect(planGlob({ pattern, path })).toEqual(plan)
  })
})

describe('a ".." pattern under a path that is not a directory', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('dotdot')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, { 'a.ts': 'x\n', 'sub/b.ts': 'y\n' })
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it.each([
    ['a missing path', { pattern: '../**', path: 'missing' }, /no such file or directory/],
    ['a file', { pattern: '../*.ts', path: 'a.ts' }, /./],
  ])('under %s fails rather than list the cwd', async (_what, args, message) => {
    const result = await callTool(harness, 'glob', args, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content: expect.stringMatching(message) })
  })

  it('under a real directory lists its parent', async () => {
    expect(await callTool(harness, 'glob', { pattern: '../*.ts', path: 'sub' }, tree)).toMatchObject({ isError: false, content: 'a.ts' })
  })
})

describe('path-shaped globs work from any root (docs/design.md#globs-run-from-the-search-root)', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('shaped')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, SHAPED_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })
  const sorted = (text: string): string[] => text.split('\n').sort()

  it('glob "src/**/*.ts" and "deep/*.ts" match from the path given', async () => {
    expect(sorted((await callTool(harness, 'glob', { pattern: 'src/**/*.ts', path: 'pkg' }, tree)).content)).toEqual([
      'pkg/src/a.ts',
      'pkg/src/deep/b.ts',
    ])
    expect((await callTool(harness, 'glob', { pattern: 'deep/*.ts', path: 'pkg' }, tree)).content).toBe('pkg/deep/d.ts')
    expect((await callTool(harness, 'glob', { pattern: 'deep/*.ts', path: 'pkg/src' }, tree)).content).toBe('pkg/src/deep/b.ts')
  })

  it('glob "./src/*.ts" is read as "src/*.ts"', async () => {
    expect((await callTool(harness, 'glob', { pattern: './src/*.ts' }, join(tree, 'pkg'))).content).toBe('src/a.ts')
    expect((await callTool(harness, 'glob', { pattern: './src/*.ts', path: 'pkg' }, tree)).content).toBe('pkg/src/a.ts')
  })

  it('glob "../sibling/*.ts" climbs from the path, shown absolute when outside the cwd', async () => {
    expect((await callTool(harness, 'glob', { pattern: '../sibling/*.ts', path: 'pkg' }, tree)).content).toBe('sibling/e.ts')
    expect((await callTool(harness, 'glob', { pattern: '../sibling/*.ts' }, join(tree, 'pkg'))).content).toBe(`${tree}/sibling/e.ts`)
  })

  it('glob takes an absolute pattern as its own root', async () => {
    const result = await callTool(harness, 'glob', { pattern: `${tree}/pkg/src/**/*.ts` }, tree)
    expect(sorted(result.content)).toEqual(['pkg/src/a.ts', 'pkg/src/deep/b.ts'])
  })
})
