// What each tool says it sees, held against what it does see (docs/design.md#say-what-each-tool-sees).
import { execFileSync } from 'node:child_process'
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('what each tool sees', () => {
  const tree = scratchDir('vcs')
  const VCS = ['.git', '.hg', '.svn', '.jj', '.sl', '.bzr']
  beforeAll(() => {
    writeTree(tree, {
      '.gitignore': 'node_modules/\ndist/\n',
      '.env.example': 'needle\n',
      'src/app.js': 'needle\n',
      'node_modules/dep/index.js': 'needle\n',
      'dist/out.js': 'needle\n',
    })
    // A .git directory makes rg treat the tree as a repository, so .gitignore applies.
    for (const dir of VCS) writeTree(tree, { [`${dir}/meta.js`]: 'needle\n', [`nested/${dir}/meta.js`]: 'needle\n' })
  })

  it('glob lists hidden and ignored files but nothing under a VCS directory', async () => {
    const result = await callTool(harness, 'glob', { pattern: '**/*' }, tree)
    expect(result.content.split('\n').sort()).toEqual([
      '.env.example',
      '.gitignore',
      'dist/out.js',
      'node_modules/dep/index.js',
      'src/app.js',
    ])
  })

  it('grep searches hidden files but neither ignored files nor VCS directories', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, tree)
    expect(result.content).toBe('Found 2 matches\n\n.env.example\nLine 1: needle\n\nsrc/app.js\nLine 1: needle')
  })

  it.each(['.git/*', '**/.hg/*', '.jj/**', 'nested/.svn/*'])('glob pattern %j cannot reach into a VCS directory', async (pattern) => {
    expect(await callTool(harness, 'glob', { pattern }, tree)).toMatchObject({ isError: false, content: 'No files found' })
  })

  it.each(['.git/**', '**/.sl/*', '.bzr/*'])('grep include %j cannot reach into a VCS directory', async (include) => {
    expect(await callTool(harness, 'grep', { pattern: 'needle', include }, tree)).toMatchObject({
      isError: false,
      content: 'No matches found',
    })
  })

  it('grep honours an .ignore file outside a repository', async () => {
    const plain = scratchDir('ignore')
    writeTree(plain, { '.ignore': 'vendor/\n', 'vendor/v.js': 'needle\n', 'main.js': 'needle\n' })
    expect((await callTool(harness, 'grep', { pattern: 'needle' }, plain)).content).toBe('Found 1 match\n\nmain.js\nLine 1: needle')
    expect((await callTool(harness, 'glob', { pattern: '*.js' }, plain)).content.split('\n').sort()).toEqual(['main.js', 'vendor/v.js'])
  })

  it('grep searches an ignored directory when it is the path asked for', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: 'node_modules' }, tree)
    expect(result.content).toBe('Found 1 match\n\nnode_modules/dep/index.js\nLine 1: needle')
  })
})

describe('glob says exactly what it lists', () => {
  const tree = scratchDir('special')
  beforeAll(() => {
    writeTree(tree, { 'real.ts': 'x\n' })
    symlinkSync('real.ts', join(tree, 'link.ts'))
    symlinkSync('nowhere.ts', join(tree, 'dangling.ts'))
    execFileSync('mkfifo', [join(tree, 'fifo.ts')])
    execFileSync(process.execPath, [
      '-e',
      "require('net').createServer().listen(process.argv[1], () => process.exit(0))",
      join(tree, 'sock.ts'),
    ])
  })

  it('lists regular files and links inside the workspace, names a broken link, and says which kinds it never lists', async () => {
    expect((await callTool(harness, 'glob', { pattern: '*.ts' }, tree)).content).toBe(
      'link.ts\nreal.ts\n\n(1 symbolic link was not followed: dangling.ts (its target does not exist).)',
    )
    for (const tool of harness.registry.list().filter((t) => t.name === 'glob' || t.name === 'grep')) {
      for (const text of [tool.description, tool.promptSections[0]!.text]) {
        expect(text).toMatch(/follows a symbolic link that stays inside the workspace/)
        expect(text).toMatch(/is broken or loops is not followed, and a note names it/)
        expect(text).not.toMatch(/is absent \(unless/)
      }
    }
    const glob = harness.registry.list().find((tool) => tool.name === 'glob')!
    expect(glob.description).toMatch(/regular files only/)
    expect(glob.description).toMatch(/FIFOs, sockets or device files/)
  })
})
