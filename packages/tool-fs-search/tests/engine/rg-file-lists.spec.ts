// rg's walk lists: kept under a quiet mark and the stamps outside the tree, taken one at a time, the oldest dropped.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLocalFileSystem } from '@dsh/fs-local'
import { nestedStamps, outsideStamps, parseList, RgFileLists, type ListTaking, type StampingFs } from '../../src/engine/rg-file-lists.js'
import { scratchDir } from '../../../../test-support/temp-tree.js'

const list = (...paths: string[]) => Buffer.from(paths.map((p) => `${p}\0`).join(''), 'latin1')

function taking(output: Buffer | undefined, marks: Array<string | undefined> = ['m', 'm'], stamps = 's'): ListTaking & { walks: number } {
  const how = {
    walks: 0,
    mark: async () => marks.shift(),
    stamps: async () => stamps,
    nested: async () => ({ dirs: [], stamps: '' }),
    walk: async () => {
      how.walks++
      return output
    },
  }
  return how
}

describe('RgFileLists', () => {
  it('keeps a list taken under one quiet mark, and gives the path rg printed for a file it reached', async () => {
    const lists = new RgFileLists()
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
    await lists.take('k', taking(list('./a.txt', './sub/b\nc.txt', './\xff.bin')))
    const walked = lists.walked('k', 'm', 's')!
    expect(walked('a.txt')).toBe('./a.txt')
    expect(walked('sub/b\nc.txt')).toBe('./sub/b\nc.txt')
    expect(walked('\xff.bin')).toBe('./\xff.bin')
    expect(walked('ignored.txt')).toBeUndefined()
    // Another mark (a change in the tree) or other stamps (an ignore file outside it): not this list.
    expect(lists.walked('k', 'm2', 's')).toBeUndefined()
    expect(lists.walked('k', 'm', 's2')).toBeUndefined()
    expect(lists.walked('other', 'm', 's')).toBeUndefined()
  })

  it('keeps no list when the tree had no mark, changed during the walk, or the walk gave none or failed', async () => {
    const lists = new RgFileLists()
    const noMark = taking(list('./a'), [undefined])
    await lists.take('k', noMark)
    expect(noMark.walks).toBe(0)
    await lists.take('k', taking(list('./a'), ['m', 'm2']))
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
    await lists.take('k', taking(undefined))
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
    await lists.take('k', { ...taking(list('./a')), walk: () => Promise.reject(new Error('spawn failed')) })
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
    // A list taken again replaces the one before, and one that fails drops it.
    await lists.take('k', taking(list('./a')))
    expect(lists.walked('k', 'm', 's')).toBeDefined()
    await lists.take('k', { ...taking(list('./a')), walk: () => Promise.reject(new Error('spawn failed')) })
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
  })

  it('keeps with a list the repositories nested in its directories and what they exclude, or no list', async () => {
    const lists = new RgFileLists()
    const asked: Array<{ dirs: readonly string[]; since: bigint }> = []
    const before = BigInt(Date.now()) * 1_000_000n
    const nested = (found: { dirs: string[]; stamps: string } | undefined) => async (dirs: readonly string[], since: bigint) => {
      asked.push({ dirs, since })
      return found
    }
    await lists.take('k', { ...taking(list('./a', './sub/deep/b', './sub/c')), nested: nested({ dirs: ['sub'], stamps: 'n' }) })
    // Every directory on the way to a file, once; the walk's start, a second back for the kernel's clock.
    expect(asked[0]!.dirs).toEqual(['sub/deep', 'sub'])
    expect(asked[0]!.since).toBeLessThanOrEqual(before)
    expect(asked[0]!.since).toBeGreaterThan(before - 5_000_000_000n)
    expect(lists.nestedOf('k')).toEqual(['sub'])
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
    expect(lists.walked('k', 'm', 's\nn')).toBeDefined()
    expect(lists.nestedOf('other')).toEqual([])
    // One changed since the walk began, or too many to stamp: no list.
    await lists.take('k', { ...taking(list('./a')), nested: nested(undefined) })
    expect(lists.walked('k', 'm', 's')).toBeUndefined()
    expect(lists.nestedOf('k')).toEqual([])
  })

  it('takes one list at a time, a key once while it waits, and keeps the last used few', async () => {
    const lists = new RgFileLists(2)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow = { ...taking(list('./a')), walk: async () => (await gate, list('./a')) }
    const first = lists.take('a', slow)
    const other = taking(list('./other'))
    const again = lists.take('a', other)
    const second = lists.take('b', taking(list('b/x')))
    release()
    await lists.settled()
    await Promise.all([first, again, second])
    // 'a' was queued already: the second request walked nothing.
    expect(other.walks).toBe(0)
    expect(lists.walked('a', 'm', 's')!('other')).toBeUndefined()
    expect(lists.walked('a', 'm', 's')!('a')).toBe('./a')
    expect(lists.walked('b', 'm', 's')!('b/x')).toBe('b/x')
    // 'b' was used last: a third list drops 'a'.
    await lists.take('c', taking(list('./c')))
    expect(lists.walked('a', 'm', 's')).toBeUndefined()
    expect(lists.walked('b', 'm', 's')).toBeDefined()
    expect(lists.walked('c', 'm', 's')).toBeDefined()
  })
})

describe('parseList', () => {
  it("reads rg's NUL-terminated paths from `.` or from a named directory, and refuses a mix", () => {
    const dotted = parseList(list('./a', './b/c'))
    expect([dotted.prefix, dotted.locals.size, dotted.locals.has('a'), dotted.locals.has('b/c'), dotted.locals.has('./a')]).toEqual([
      './',
      2,
      true,
      true,
      false,
    ])
    const named = parseList(list('sub/a'))
    expect([named.prefix, named.locals.size, named.locals.has('sub/a'), named.locals.has('a')]).toEqual(['', 1, true, false])
    expect(parseList(Buffer.alloc(0)).locals.size).toBe(0)
    // Bytes after the last NUL are no path.
    expect(parseList(Buffer.from('./a\0./b')).locals.has('b')).toBe(false)
    expect(() => parseList(list('./a', 'b'))).toThrow(/more than one root/)
    // The directories on the way to each file, from the search directory, each once.
    expect(parseList(list('./x/y/a', './x/y/b', './x/z/c', './x/y/d', './e')).dirs).toEqual(['x/y', 'x', 'x/z'])
    expect(parseList(list('sub/a', 'sub/\xff/b')).dirs).toEqual(['sub', 'sub/\xff'])
  })
})

describe('outsideStamps', () => {
  const root = scratchDir('outside-stamps')
  const home = join(root, 'home')
  const dir = join(root, 'repo', 'tree')
  mkdirSync(dir, { recursive: true })
  mkdirSync(join(home, '.config', 'git'), { recursive: true })
  const env = { HOME: home }
  const fs = createLocalFileSystem() as StampingFs

  it('changes when an ignore file above the tree, a .git, or git’s global excludes change', async () => {
    const before = await outsideStamps(dir, fs, [], env)
    expect(await outsideStamps(dir, fs, [], env)).toBe(before)
    writeFileSync(join(root, 'repo', '.gitignore'), '*.log\n')
    const ignored = await outsideStamps(dir, fs, [], env)
    expect(ignored).not.toBe(before)
    mkdirSync(join(root, 'repo', '.git', 'info'), { recursive: true })
    const repo = await outsideStamps(dir, fs, [], env)
    expect(repo).not.toBe(ignored)
    writeFileSync(join(root, 'repo', '.git', 'info', 'exclude'), 'x\n')
    const excluded = await outsideStamps(dir, fs, [], env)
    expect(excluded).not.toBe(repo)
    // The tree's own repository: the watcher does not watch a VCS directory, so its exclude file is stamped.
    mkdirSync(join(dir, '.git', 'info'), { recursive: true })
    const own = await outsideStamps(dir, fs, [], env)
    expect(own).not.toBe(excluded)
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'secret.txt\n')
    const ownExcluded = await outsideStamps(dir, fs, [], env)
    expect(ownExcluded).not.toBe(own)
    // What git writes inside its directory on an add or a commit does not count.
    writeFileSync(join(dir, '.git', 'index'), 'x')
    expect(await outsideStamps(dir, fs, [], env)).toBe(ownExcluded)
    writeFileSync(join(home, '.config', 'git', 'ignore'), 'y\n')
    const global = await outsideStamps(dir, fs, [], env)
    expect(global).not.toBe(excluded)
    // A configured excludes file, named with ~ and quoted, is stamped too.
    writeFileSync(join(home, '.gitconfig'), '[core]\n\texcludesFile = "~/my-excludes"\n')
    const configured = await outsideStamps(dir, fs, [], env)
    writeFileSync(join(home, 'my-excludes'), 'z\n')
    expect(await outsideStamps(dir, fs, [], env)).not.toBe(configured)
    const xdg = join(root, 'xdg')
    mkdirSync(join(xdg, 'git'), { recursive: true })
    writeFileSync(join(xdg, 'git', 'config'), '[core]\nexcludesfile = /abs/excludes\n')
    expect(await outsideStamps(dir, fs, [], { ...env, XDG_CONFIG_HOME: xdg })).toContain('/abs/excludes {"kind":"missing"}')
    // Without HOME git reads no global configuration: only the files above the tree are stamped.
    expect(await outsideStamps(dir, fs, [], {})).not.toContain('gitconfig')
    expect(await outsideStamps(dir, fs, [], { XDG_CONFIG_HOME: xdg })).toContain(`${xdg}/git/config`)
    // An excludes file with ~ and no HOME is stamped as written.
    writeFileSync(join(xdg, 'git', 'config'), '[core]\nexcludesfile = ~/e\n')
    expect(await outsideStamps(dir, fs, [], { XDG_CONFIG_HOME: xdg })).toMatch(/\n~\/e \{/)
  })

  it('follows a .git file to the exclude file rg reads for a worktree: the common directory’s', async () => {
    const tree = join(root, 'worktree')
    const common = join(root, 'main-repo', '.git')
    const gitdir = join(common, 'worktrees', 'w')
    mkdirSync(tree, { recursive: true })
    mkdirSync(join(common, 'info'), { recursive: true })
    mkdirSync(gitdir, { recursive: true })
    const stamps = () => outsideStamps(tree, fs, [], env)
    // A .git file that names no directory: only it is stamped.
    for (const text of ['', 'not a gitdir\n']) {
      writeFileSync(join(tree, '.git'), text)
      expect(await stamps()).not.toContain('commondir')
    }
    writeFileSync(join(tree, '.git'), 'gitdir: \n')
    const empty = await stamps()
    expect(empty).toContain(`${tree}/.git {"kind":"file"`)
    expect(empty).not.toContain('commondir')
    writeFileSync(join(tree, '.git'), `gitdir: ${gitdir}\n`)
    const named = await stamps()
    expect(named).not.toBe(empty)
    // No commondir: rg reads no exclude file there, so only the commondir is stamped.
    expect(named).toContain(`${gitdir}/commondir {"kind":"missing"}`)
    writeFileSync(join(gitdir, 'commondir'), '../..\n')
    const worktree = await stamps()
    expect(worktree).toContain(`${common}/info/exclude {"kind":"missing"}`)
    writeFileSync(join(common, 'info', 'exclude'), 'secret.txt\n')
    const excluded = await stamps()
    expect(excluded).not.toBe(worktree)
    expect(await stamps()).toBe(excluded)
    // A relative gitdir is read from the directory of the .git file.
    writeFileSync(join(tree, '.git'), 'gitdir: ../main-repo/.git/worktrees/w\n')
    expect(await stamps()).toContain(`${common}/info/exclude {"kind":"file"`)
  })

  it('stamps what the repositories nested in the tree exclude, and says when that last changed', async () => {
    const tree = join(root, 'nesting')
    mkdirSync(join(tree, 'sub', '.git', 'info'), { recursive: true })
    mkdirSync(join(tree, 'wt'), { recursive: true })
    writeFileSync(join(tree, 'wt', '.git'), 'gitdir: /nowhere\n')
    const plain = await outsideStamps(tree, fs, [], env)
    const nested = await outsideStamps(tree, fs, ['sub', 'wt'], env)
    expect(nested.startsWith(`${plain}\n`)).toBe(true)
    expect(nested).toContain(`${tree}/sub/.git/info/exclude {"kind":"missing"}`)
    expect(nested).toContain('/nowhere/commondir {"kind":"missing"}')
    // A .git directory's times do not count; a .git file's do.
    const quiet = await nestedStamps(tree, ['sub'], fs)
    expect(quiet.changed).toBe(0n)
    const started = BigInt(Date.now() - 1_000) * 1_000_000n
    writeFileSync(join(tree, 'sub', '.git', 'info', 'exclude'), 'a.txt\n')
    const written = await nestedStamps(tree, ['sub'], fs)
    expect(written.text).not.toBe(quiet.text)
    expect(written.changed).toBeGreaterThanOrEqual(started)
    expect((await nestedStamps(tree, ['wt'], fs)).changed).toBeGreaterThanOrEqual(started)
    // A path the seam cannot stamp says nothing of its time: taken as changed now.
    const unknown = { ...fs, stampMany: async (paths: readonly string[]) => paths.map(() => ({ kind: 'unknown' as const })) }
    expect((await nestedStamps(tree, ['sub'], unknown)).changed).toBeGreaterThanOrEqual(started)
  })
})
