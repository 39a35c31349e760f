// Symbolic links over real rg, find and files (docs/design.md#symbolic-links): followed inside the
// workspace under the path given, named when they lead out, dangle or loop, and never a way past the policy.
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as access from '@dsh/access'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type ToolResult } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { budgetMs } from '../../../../test-support/budget.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

const scratchDir = scratchDirs()
const quiet = { warn: () => undefined, info: () => undefined }

/** A pnpm-style workspace: packages behind links, a link out, a broken one, loops, and a denied tree behind a link. */
function pnpmTree(): { work: string; outside: string } {
  const root = realpathSync(scratchDir('links'))
  const work = join(root, 'work')
  const outside = join(root, 'outside')
  writeTree(work, {
    'src/main.ts': 'import pkg\n',
    'store/pkg@1/src/index.ts': 'export const needle = 1\n',
    'store/pkg@1/package.json': '{"name": "pkg"}\n',
    'store/dep@2/lib/dep.js': 'module.exports = "needle dep"\n',
    'secrets/key.txt': 'needle SECRET-denied\n',
    'config/prod/db.json': '"needle SECRET-prod"\n',
    'config/dev/db.json': '"needle dev"\n',
  })
  writeTree(outside, { 'leak.txt': 'needle SECRET-outside\n' })
  mkdirSync(join(work, 'node_modules'))
  symlinkSync('../store/pkg@1', join(work, 'node_modules/pkg'))
  // A link inside a linked package, to another package inside: followed through both.
  symlinkSync('../dep@2', join(work, 'store/pkg@1/dep'))
  symlinkSync(outside, join(work, 'node_modules/escape'))
  symlinkSync('../gone', join(work, 'node_modules/broken'))
  symlinkSync('.', join(work, 'store/self'))
  symlinkSync('y', join(work, 'x'))
  symlinkSync('x', join(work, 'y'))
  symlinkSync('secrets', join(work, 'alias'))
  symlinkSync('config', join(work, 'cfg'))
  return { work, outside }
}

async function policyHarness(profile: 'dsh' | 'claude-code', spillRoot: string, path?: string): Promise<Harness> {
  return loadHarness({
    plugins: [bashLocal, spillLocal, fsLocal, access, toolFsSearch],
    config: {
      ...(path === undefined ? {} : { [bashLocal.name]: { envSet: { PATH: path } } }),
      'spill-local': { root: spillRoot },
      access: { deny: ['secrets', 'config/prod/'] },
      'tool-fs-search': { profile },
    },
    logger: quiet,
  })
}

const lines = (result: ToolResult) => result.content.split('\n\n')[0]!.split('\n').sort()

describe('links in a pnpm-style tree, with the access policy', () => {
  const { work } = pnpmTree()
  let dsh: Harness
  let claude: Harness
  beforeAll(async () => {
    const spillRoot = scratchDir('links-spill')
    dsh = await policyHarness('dsh', spillRoot)
    claude = await policyHarness('claude-code', spillRoot)
  })

  it('glob lists what a link inside the workspace leads to, under the path given', async () => {
    const result = await callTool(dsh, 'glob', { pattern: 'node_modules/pkg/**' }, work)
    expect(lines(result)).toEqual(['node_modules/pkg/dep/lib/dep.js', 'node_modules/pkg/package.json', 'node_modules/pkg/src/index.ts'])
    const claudeGlob = await claude.registry.execute(
      'Glob',
      { pattern: 'node_modules/pkg/**' },
      { agent: { session: { header: { id: 'c', cwd: work } } } },
    )
    expect(claudeGlob.content.split('\n\n')[0]).toMatch(/node_modules\/pkg\/src\/index\.ts/)
  })

  it('grep of node_modules finds matches behind the links, and names the links it did not follow', async () => {
    const result = await callTool(dsh, 'grep', { pattern: 'needle', path: 'node_modules' }, work)
    expect(result.isError).toBe(false)
    expect(result.content).toMatch(/^Found 2 matches\n\nnode_modules\/pkg\/dep\/lib\/dep\.js\nLine 1: /)
    expect(result.content).toContain('node_modules/pkg/src/index.ts\nLine 1: export const needle = 1')
    expect(result.content).toContain(
      '(2 symbolic links were not followed: node_modules/broken (its target does not exist); node_modules/escape (leads outside the directories this search may reach).)',
    )
    expect(result.content).not.toContain('SECRET')
  })

  it('Grep in every mode follows the same links', async () => {
    const agent = { agent: { session: { header: { id: 'c', cwd: work } } } }
    for (const output_mode of ['files_with_matches', 'count', 'content'] as const) {
      const result = await claude.registry.execute('Grep', { pattern: 'needle', path: 'node_modules', output_mode }, agent)
      expect(result.content, output_mode).toContain('node_modules/pkg/src/index.ts')
      expect(result.content, output_mode).toContain('node_modules/escape (leads outside')
      expect(result.content, output_mode).not.toContain('SECRET')
    }
  })

  it('a search of the whole workspace names loops and links out, never follows a link into a denied tree, and keeps anchored rules under a link', async () => {
    const result = await callTool(dsh, 'grep', { pattern: 'needle' }, work)
    expect(result.content).not.toContain('SECRET')
    // cfg -> config: config/prod is denied, so cfg/prod is too; cfg/dev is not.
    expect(result.content).toContain('cfg/dev/db.json')
    expect(result.content).not.toContain('cfg/prod')
    // alias -> secrets is left out without a word: its name is part of what the rule hides.
    expect(result.content).not.toContain('alias')
    expect(result.content).toContain('(5 symbolic links were not followed: ')
    for (const named of [
      'node_modules/broken (its target does not exist)',
      'node_modules/escape (leads outside',
      'store/self (leads in a loop)',
      'x (leads in a loop)',
      'y (leads in a loop)',
    ]) {
      expect(result.content).toContain(named)
    }
    // store/self is not followed, so nothing shows under it; and no error of rg's reads as a gap.
    expect(result.content).not.toContain('store/self/')
    expect(result.content).not.toContain('Search incomplete')
  })

  it(
    'follows 3,000 links into a store under a rule for any depth, which hides the files it names behind each',
    async () => {
      const root = realpathSync(scratchDir('links-many'))
      mkdirSync(join(root, 'node_modules'))
      for (let i = 0; i < 3_000; i++) {
        writeTree(root, { [`store/p${i}@1/index.ts`]: i % 1000 === 7 ? 'export const manyNeedle = 1\n' : 'x\n' })
        symlinkSync(`../store/p${i}@1`, join(root, `node_modules/${'p'.repeat(20)}${i}`))
      }
      writeFileSync(join(root, 'store/p7@1/.env'), 'manyNeedle=SECRET\n')
      const harness = await loadHarness({
        plugins: [bashLocal, spillLocal, fsLocal, access, toolFsSearch],
        config: { 'spill-local': { root: scratchDir('links-many-spill') }, access: { deny: ['**/.env'] } },
        logger: quiet,
      })
      const result = await callTool(harness, 'grep', { pattern: 'manyNeedle', path: 'node_modules' }, root)
      expect(result.content).toContain('Found 3 matches')
      for (const i of [7, 1007, 2007]) expect(result.content).toContain(`node_modules/${'p'.repeat(20)}${i}/index.ts`)
      expect(result.content).not.toContain('SECRET')
      expect(result.content).not.toContain('not followed')
    },
    budgetMs(40_000),
  )

  it('a file reached by two paths appears under each: the link and its target', async () => {
    const result = await callTool(dsh, 'glob', { pattern: '**/index.ts' }, work)
    expect(lines(result)).toEqual(['node_modules/pkg/src/index.ts', 'store/pkg@1/src/index.ts'])
  })

  it('a find without -printf, which reports no targets, leads to the same answers', async () => {
    // A find that refuses -printf in a walk (as BusyBox's does), so every target is resolved through the
    // file system; glob's mtime helper, which names no start point, still gets GNU find.
    const bin = scratchDir('links-plain-find')
    writeFileSync(join(bin, 'find'), '#!/bin/sh\ncase " $* " in " . "*" -printf "*) exit 1 ;; esac\nexec /usr/bin/find "$@"\n')
    chmodSync(join(bin, 'find'), 0o755)
    const plain = await policyHarness('dsh', scratchDir('links-plain-spill'), `${bin}:/usr/bin:/bin`)
    for (const [tool, args] of [
      ['grep', { pattern: 'needle' }],
      ['glob', { pattern: '**' }],
      ['grep', { pattern: 'needle', path: 'node_modules' }],
    ] as const) {
      const [reported, resolved] = await Promise.all([callTool(dsh, tool, args, work), callTool(plain, tool, args, work)])
      expect(resolved.content).toBe(reported.content)
      expect(resolved.content).toContain('node_modules/pkg/')
    }
  })
})

describe('links without an access policy', () => {
  it('follows links inside the session cwd and the searched tree, and names one that leads out', async () => {
    const { work } = pnpmTree()
    const harness = await loadRealHarness({ spillRoot: scratchDir('links-nopolicy-spill') })
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: 'node_modules' }, work)
    expect(result.content).toContain('node_modules/pkg/src/index.ts')
    expect(result.content).toContain('node_modules/escape (leads outside')
    expect(result.content).not.toContain('SECRET-outside')
  })

  it('says so when there are links but no file system to resolve them, and follows none', async () => {
    const { work } = pnpmTree()
    const harness = await loadHarness({
      plugins: [bashLocal, spillLocal, toolFsSearch],
      config: { 'spill-local': { root: scratchDir('links-nofs-spill') } },
      logger: quiet,
    })
    const result = await callTool(harness, 'glob', { pattern: 'node_modules/**' }, work)
    expect(result.content).toBe('No files found\n\n(Symbolic links were not followed: no file system provider is loaded to resolve them.)')
  })
})

describe('many links', () => {
  it('names five links it did not follow, then counts the rest, sorted', async () => {
    const work = realpathSync(scratchDir('many-links'))
    writeTree(work, { 'a.txt': 'needle\n' })
    for (let i = 0; i < 8; i++) symlinkSync(`missing-${i}`, join(work, `broken-${i}`))
    const harness = await loadRealHarness({ spillRoot: scratchDir('many-links-spill') })
    const result = await callTool(harness, 'glob', { pattern: '*' }, work)
    expect(result.content).toBe(
      'a.txt\n\n(8 symbolic links were not followed: broken-0 (its target does not exist); broken-1 (its target does not exist); broken-2 (its target does not exist); broken-3 (its target does not exist); broken-4 (its target does not exist); and 3 more.)',
    )
  })

  it('shows a link name that holds a newline quoted, and excludes it exactly', async () => {
    const work = realpathSync(scratchDir('odd-links'))
    writeTree(work, { 'a.txt': 'needle\n', 'd/b.txt': 'needle\n' })
    symlinkSync('/', join(work, 'up\nand [out]*'))
    symlinkSync('d', join(work, 'in\nside'))
    const harness = await loadRealHarness({ spillRoot: scratchDir('odd-links-spill') })
    const result = await callTool(harness, 'grep', { pattern: 'needle' }, work)
    expect(result.content).toContain('"in\\nside/b.txt"')
    expect(result.content).toContain('not followed: "up\\nand [out]*" (leads outside the directories this search may reach).)')
  })
})
