import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { FsError, type FileSystem, type SpillStore } from '@dsh/core'
import { createAccessPolicy } from '@dsh/access'
import { createLocalFileSystem } from '@dsh/fs-local'
import { scratchDir } from '../../../test-support/temp-tree.js'

const scratch = scratchDir('access-policy')
const work = join(scratch, 'work')
const outside = join(scratch, 'outside')
const spillRoot = join(scratch, 'spill')
beforeAll(() => {
  for (const [file, text] of Object.entries({
    'work/src/a.ts': 'a',
    'work/.env': 'SECRET=1',
    'work/config/prod/db.json': '{}',
    'work/notes.txt': 'n',
    'outside/secret.txt': 's',
    'spill/cli/0001-grep-results.txt': 'r',
  })) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true })
    writeFileSync(join(scratch, file), text)
  }
  symlinkSync(join(outside, 'secret.txt'), join(work, 'escape.txt'))
  symlinkSync(outside, join(work, 'escape-dir'))
  symlinkSync(join(work, '.env'), join(work, 'innocent.txt'))
  symlinkSync(join(work, 'notes.txt'), join(work, 'id_rsa'))
})

const store: SpillStore = {
  saveText: () => Promise.reject(new Error('unused')),
  saveStream: () => Promise.reject(new Error('unused')),
  readText: () => Promise.reject(new Error('unused')),
  holds: (path, owner) => Promise.resolve(owner === 'cli' && path.startsWith(`${spillRoot}/cli/`)),
  locate: () => Promise.reject(new Error('unused')),
}
const fs = createLocalFileSystem()
const policy = (roots: string[] = ['.'], deny: string[] = ['**/.env', 'id_*', 'config/prod/'], spill: SpillStore | null = store) =>
  createAccessPolicy({ roots, deny }, { fs, spillStore: () => spill ?? undefined })
const check = (path: string, purpose: 'search' | 'read' = 'read', p = policy(), session = 'cli') =>
  p.check({ path, cwd: work, purpose, session })

describe('roots', () => {
  it.each(['src/a.ts', 'src', '.', join(work, 'notes.txt'), 'src/../notes.txt', 'src/missing.ts', 'new/dir/file'])(
    'allows %s inside the session cwd',
    async (path) => {
      await expect(check(path)).resolves.toMatchObject({ realPath: expect.stringMatching(new RegExp(`^${work}`)) })
    },
  )

  it.each([
    ['..', scratch],
    ['../outside/secret.txt', join(outside, 'secret.txt')],
    ['escape.txt', join(outside, 'secret.txt')],
    ['escape-dir/secret.txt', join(outside, 'secret.txt')],
    ['escape-dir/missing.txt', join(outside, 'missing.txt')],
    ['/etc/passwd', '/etc/passwd'],
  ])('refuses %s, naming the roots', async (path) => {
    await expect(check(path)).rejects.toMatchObject({
      code: 'ACCESS_OUTSIDE_ROOTS',
      message: `${path} is outside the directories this session may read: ${work}. Give a path inside one of them.`,
    })
  })

  it('follows the session cwd: roots are relative to the call', async () => {
    await expect(policy().check({ path: 'secret.txt', cwd: outside, purpose: 'read' })).resolves.toMatchObject({
      realPath: join(outside, 'secret.txt'),
    })
  })

  it('takes several roots, absolute or relative', async () => {
    const both = policy(['src', outside])
    await expect(check('src/a.ts', 'read', both)).resolves.toBeDefined()
    await expect(check('escape.txt', 'read', both)).resolves.toMatchObject({ realPath: join(outside, 'secret.txt') })
    await expect(check('notes.txt', 'search', both)).rejects.toMatchObject({
      code: 'ACCESS_OUTSIDE_ROOTS',
      message: expect.stringContaining(`may search: ${join(work, 'src')}, ${outside}.`),
    })
  })

  it.each(['/proc/self/environ', '/proc', '/sys/kernel', '/dev/null'])('keeps %s out of a root of "/"', async (path) => {
    await expect(check(path, 'read', policy(['/']))).rejects.toMatchObject({ code: 'ACCESS_OUTSIDE_ROOTS' })
  })

  it('lets a root that names a special tree reach into it', async () => {
    await expect(check('/proc/self/status', 'read', policy(['/proc']))).resolves.toMatchObject({
      realPath: expect.stringMatching(/^\/proc\/\d+\/status$/),
    })
  })

  it("keeps the spill store's own files reachable wherever they are", async () => {
    const locator = join(spillRoot, 'cli', '0001-grep-results.txt')
    await expect(check(locator)).resolves.toEqual({ realPath: locator, excludeGlobs: [] })
    await expect(check(locator, 'read', policy(['.'], [], null))).rejects.toMatchObject({ code: 'ACCESS_OUTSIDE_ROOTS' })
  })

  it("exempts only the files the store holds for the asking session: another's, or a call with no session, are judged", async () => {
    const locator = join(spillRoot, 'cli', '0001-grep-results.txt')
    await expect(check(locator, 'read', policy(), 'other')).rejects.toMatchObject({ code: 'ACCESS_OUTSIDE_ROOTS' })
    await expect(policy().check({ path: locator, cwd: work, purpose: 'read' })).rejects.toMatchObject({ code: 'ACCESS_OUTSIDE_ROOTS' })
  })

  it('denies a file the store does not hold, even when the store lies over the whole workspace', async () => {
    const everywhere: SpillStore = { ...store, holds: (path) => Promise.resolve(path === join(work, 'notes.txt')) }
    await expect(check('notes.txt', 'read', policy(['.'], ['**/.env'], everywhere))).resolves.toMatchObject({ excludeGlobs: [] })
    await expect(check('.env', 'read', policy(['.'], ['**/.env'], everywhere))).rejects.toMatchObject({ code: 'ACCESS_DENIED' })
  })
})

describe('deny rules', () => {
  it.each([
    ['.env', 'read'],
    ['src/../.env', 'read'],
    ['innocent.txt', 'read'],
    ['id_rsa', 'read'],
    ['config/prod/db.json', 'read'],
    ['config/prod', 'search'],
  ] as const)('refuse %s, wherever the name or the link leads, without naming the rule', async (path, purpose) => {
    await expect(check(path, purpose)).rejects.toMatchObject({
      code: 'ACCESS_DENIED',
      message: expect.stringMatching(/is excluded by this session's access rules; it cannot be (read|searched)\.$/),
    })
  })

  it('become rg exclusions below a search root', async () => {
    await expect(check('.', 'search')).resolves.toEqual({ realPath: work, excludeGlobs: ['**/.env', 'id_*', '/config/prod/'] })
    const anchored = policy(['.'], ['config/prod/*.json', '*.pem'])
    await expect(check('config', 'search', anchored)).resolves.toEqual({
      realPath: join(work, 'config'),
      excludeGlobs: ['/prod/*.json', '*.pem'],
    })
  })

  it('are not exclusions for a read', async () => {
    await expect(check('notes.txt')).resolves.toEqual({ realPath: join(work, 'notes.txt'), excludeGlobs: [] })
  })
})

describe('a file system that fails', () => {
  it('judges a path it cannot resolve by its name', async () => {
    const broken: FileSystem = { ...fs, realpath: () => Promise.reject(new FsError('FS_PERMISSION', 'no')) }
    const p = createAccessPolicy({ roots: ['.'], deny: [] }, { fs: broken, spillStore: () => undefined })
    await expect(p.check({ path: 'a/../b', cwd: work, purpose: 'read' })).resolves.toMatchObject({ realPath: join(work, 'b') })
    await expect(p.check({ path: '../b', cwd: work, purpose: 'read' })).rejects.toMatchObject({ code: 'ACCESS_OUTSIDE_ROOTS' })
  })

  it('resolves a path whose every ancestor is missing to itself', async () => {
    const empty: FileSystem = { ...fs, realpath: (path) => Promise.reject(new FsError('FS_NOT_FOUND', `${path} does not exist`)) }
    const p = createAccessPolicy({ roots: ['/w'], deny: [] }, { fs: empty, spillStore: () => undefined })
    await expect(p.check({ path: 'x', cwd: '/w', purpose: 'read' })).resolves.toMatchObject({ realPath: '/w/x' })
  })
})

describe('checks side by side (docs/design.md#symbolic-links)', () => {
  /** fs-local, counting the real paths asked of it. */
  function countingFs(): FileSystem & { asked: string[] } {
    const asked: string[] = []
    return { ...fs, asked, realpath: (path) => (asked.push(path), fs.realpath(path)) }
  }

  it('resolves the roots once for checks that overlap or follow within a turn, and again in a later turn', async () => {
    const counting = countingFs()
    const p = createAccessPolicy({ roots: ['.', '../outside'], deny: [] }, { fs: counting, spillStore: () => undefined })
    const paths = Array.from({ length: 20 }, (_, i) => `src/f${i}.ts`)
    await Promise.all(paths.map((path) => p.check({ path, cwd: work, purpose: 'search' })))
    const rootsAsked = () => counting.asked.filter((path) => path === work || path === outside).length
    expect(rootsAsked()).toBe(2)
    // Rounds of checks whose paths are resolved already, one after the other: a search judging links from memory.
    for (let round = 0; round < 5; round++) {
      await Promise.all(paths.map((path) => p.check({ path, cwd: work, purpose: 'search', realPath: join(work, path) })))
    }
    expect(rootsAsked()).toBe(2)
    await new Promise((resolve) => setImmediate(resolve))
    await p.check({ path: 'src/a.ts', cwd: work, purpose: 'search' })
    expect(rootsAsked()).toBe(4)
  })

  it('resolves the roots anew for a check from another cwd while others run', async () => {
    const p = createAccessPolicy({ roots: ['.'], deny: [] }, { fs, spillStore: () => undefined })
    const [inWork, inOutside, inWorkAgain] = await Promise.all([
      p.check({ path: 'src/a.ts', cwd: work, purpose: 'search' }),
      p.check({ path: 'secret.txt', cwd: outside, purpose: 'search' }),
      p.check({ path: 'notes.txt', cwd: work, purpose: 'search' }),
    ])
    expect([inWork.realPath, inOutside.realPath, inWorkAgain.realPath]).toEqual([
      join(work, 'src/a.ts'),
      join(outside, 'secret.txt'),
      join(work, 'notes.txt'),
    ])
    await expect(p.check({ path: join(outside, 'secret.txt'), cwd: work, purpose: 'search' })).rejects.toMatchObject({
      code: 'ACCESS_OUTSIDE_ROOTS',
    })
  })

  it('judges the real path a caller resolved without resolving it again, and the name it was given too', async () => {
    const counting = countingFs()
    const p = createAccessPolicy({ roots: ['.'], deny: ['**/.env'] }, { fs: counting, spillStore: () => undefined })
    const link = join(work, 'innocent.txt')
    await expect(p.check({ path: link, cwd: work, purpose: 'search', realPath: join(outside, 'secret.txt') })).rejects.toMatchObject({
      code: 'ACCESS_OUTSIDE_ROOTS',
    })
    await expect(p.check({ path: 'alias/.env', cwd: work, purpose: 'search', realPath: join(work, 'notes.txt') })).rejects.toMatchObject({
      code: 'ACCESS_DENIED',
    })
    await expect(p.check({ path: link, cwd: work, purpose: 'search', realPath: join(work, 'src/a.ts') })).resolves.toMatchObject({
      realPath: join(work, 'src/a.ts'),
    })
    await expect(p.check({ path: link, cwd: work, purpose: 'search', realPath: `${work}/src/../notes.txt/` })).resolves.toMatchObject({
      realPath: join(work, 'notes.txt'),
    })
    expect(counting.asked).not.toContain(link)
  })
})
