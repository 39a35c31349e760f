// The local index's plan, file by file: every reason it reads the whole tree, and the checks on the file it reads.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { BashExecutor, BashRunResult, IndexAnswer } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { buildIndex, createLocalSearchIndex, IndexError, resolveIndexOptions } from '../src/index.js'
import {
  decodeIndex,
  encodeIndex,
  FILE_ALWAYS,
  FILE_INDEXED,
  FILE_INDEXED_NUL,
  findKey,
  INDEX_FORMAT_VERSION,
  loadIndexFile,
  openIndexFile,
  readPostings,
  UNREAD_DIR,
} from '../src/format.js'
import { readForIndex } from '../src/key-files.js'
import { changedSince, findTime, parseChanged } from '../src/freshness.js'
import { INDEX_FILE, treeDir } from '../src/location.js'
import { ignoreLine, loadOnce } from '../src/store.js'
import { rgPath } from '@vscode/ripgrep'
import { failingBash } from '../../../test-support/failing-bash.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'

const base = scratchDir('index-store')
const signal = new AbortController().signal
const bash = createLocalBash({})
let count = 0

async function setup(files: Record<string, string>, options: Record<string, unknown> = {}, executor: BashExecutor = bash) {
  const root = join(base, `t${count++}`)
  writeTree(root, files)
  // The trees here are a few files: one candidate of three is past the default broad share.
  const index = createLocalSearchIndex({ dir: join(base, 'index'), broadFraction: 0.5, ...options, bash: executor })
  await buildIndex(index.settings, root)
  const plan = (pattern: string, extra: Record<string, unknown> = {}, dir = root) =>
    index.plan({ dir, pattern, caseInsensitive: false, multiline: false, signal, ...extra })
  return { root, index, plan }
}

function reason(answer: IndexAnswer): string {
  return answer.kind === 'full-scan' ? `${answer.reason}: ${answer.detail}` : 'candidates'
}

const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' }

afterEach(() => vi.restoreAllMocks())

describe('plan', () => {
  it('answers candidates with an ignore file that names them, and deletes it on release', async () => {
    const { plan } = await setup(FILES)
    const answer = await plan('alpha')
    expect(answer).toMatchObject({ kind: 'candidates', indexedFiles: 3, candidates: 1, changed: 0, named: 0, namedFile: undefined })
    if (answer.kind !== 'candidates') throw new Error('no candidates')
    expect(readFileSync(answer.ignoreFile!, 'utf8')).toBe('*\n!/a.txt\n')
    await answer.release()
    expect(() => readFileSync(answer.ignoreFile!)).toThrow()
  })

  it('answers an alternation with every file either side names, a file in both once', async () => {
    // a and d name one side, b both, c the other: the union meets a shared id and runs out on either side.
    const { plan } = await setup(
      { 'a.txt': 'alpha\n', 'b.txt': 'alpha omega\n', 'c.txt': 'omega\n', 'd.txt': 'alpha\n' },
      { broadFraction: 1 },
    )
    for (const pattern of ['alpha|omega', 'omega|alpha']) {
      const answer = await plan(pattern)
      if (answer.kind !== 'candidates') throw new Error(reason(answer))
      expect(answer.candidates).toBe(4)
      expect(readFileSync(answer.ignoreFile!, 'utf8')).toBe('*\n!/a.txt\n!/b.txt\n!/c.txt\n!/d.txt\n')
      await answer.release()
    }
  })

  it("keeps a file for a literal only where the literal's trigrams line up", async () => {
    // b holds every trigram of `function saveQuery` in two places that do not line up; e holds its pieces
    // on two lines, at the columns they would have on one, which columns cannot tell from lined up, so it
    // stays (rg rejects it).
    const { plan } = await setup(
      {
        'a.txt': 'x function saveQuery1(\n',
        'b.txt': 'function save(); saveQuery9()\n',
        'c.txt': 'nothing\n',
        'd.txt': 'only saveQuery\n',
        'e.txt': `function saveXX\n${' '.repeat(9)}saveQuery\n`,
        'f.txt': 'padding\n',
      },
      { broadFraction: 1 },
    )
    const lines = async (pattern: string, extra: Record<string, unknown> = {}) => {
      const answer = await plan(pattern, extra)
      if (answer.kind !== 'candidates') throw new Error(reason(answer))
      const text = readFileSync(answer.ignoreFile!, 'utf8')
      await answer.release()
      return text.trim().split('\n').slice(1)
    }
    expect(await lines('function saveQuery\\d+\\(')).toEqual(['!/a.txt', '!/e.txt'])
    // Under -i an s may be ſ: the literal is two, `function ` and `avequery`, each lined up on its own.
    expect(await lines('FUNCTION SAVEQUERY', { caseInsensitive: true })).toEqual(['!/a.txt', '!/b.txt', '!/e.txt'])
    expect(await lines('FUNCTION AVEQUERY', { caseInsensitive: true })).toEqual([])
    // Within an AND whose other part is read first; and a phrase a trigram of which no file holds.
    expect(await lines('x fun.*function saveQuery')).toEqual(['!/a.txt'])
    expect(await lines('saveQuery9\\(|function saveQuerz')).toEqual(['!/b.txt'])
  })

  it('keeps a file for a literal across a line end only where the next line starts at its column', async () => {
    // Both hold every trigram of `save\n  saveQuery`; in b `  saveQuery` starts at column 1, not 0.
    const { plan } = await setup({ 'a.txt': 'x save\n  saveQuery\n', 'b.txt': 'save\n  x\nq  saveQuery\n' }, { broadFraction: 1 })
    const answer = await plan('save\\n  saveQuery')
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.ignoreFile!, 'utf8')).toBe('*\n!/a.txt\n')
    await answer.release()
    // Without the line end the literal's columns go on from its start, and neither file lines up.
    const none = await plan('save  saveQuery')
    expect(none).toMatchObject({ kind: 'candidates', candidates: 0 })
    if (none.kind === 'candidates') await none.release()
  })

  it("reads a phrase's dense lists however few files stand", async () => {
    // `common` is in every file, so its trigrams' lists are dense. b holds every trigram of `qqq common`,
    // but ` co` where `qqq` does not allow it: only the dense lists tell it apart.
    const files: Record<string, string> = {
      'a.txt': 'qqq common\n',
      'b.txt': 'qqq cx common\n',
      'c.txt': 'xyz common\n',
      'd.txt': 'wxyz cx common\n',
    }
    for (let i = 0; i < 300; i++) files[`f${i}.txt`] = 'zzz common\n'
    const { plan } = await setup(files)
    const named = async (pattern: string) => {
      const answer = await plan(pattern)
      if (answer.kind !== 'candidates') throw new Error(reason(answer))
      await answer.release()
      return answer.candidates
    }
    // Two of 304 stand after `qqq`; one after `wxyz c`, and its dense lists are read too (each looked
    // up for the files still standing): d is out of line as b.
    expect(await named('qqq common')).toBe(1)
    expect(await named('wxyz common')).toBe(0)
  })

  it('stops reading lists once no file is left, and leaves out candidates outside the search directory', async () => {
    const { root, plan } = await setup(
      { 'src/a.txt': 'alpha abcd bcdef\n', 'b.txt': 'alpha\n', 'c.txt': 'nothing\n', 'd.txt': 'more\n' },
      { broadFraction: 1 },
    )
    const lines = async (pattern: string, dir = root) => {
      const answer = await plan(pattern, {}, dir)
      if (answer.kind !== 'candidates') throw new Error(reason(answer))
      const text = readFileSync(answer.ignoreFile!, 'utf8')
      await answer.release()
      return text.trim().split('\n').slice(1)
    }
    // A trigram no file holds, alone and in an AND of two literals.
    expect(await lines('qqq')).toEqual([])
    expect(await lines('alp.*qqq')).toEqual([])
    // abc, bcd and cde are all in src/a.txt, but cde never where abc's start allows: def is not read.
    expect(await lines('abcdef')).toEqual([])
    expect(await lines('alpha', join(root, 'src'))).toEqual(['!/a.txt'])
  })

  it('reads the whole tree for a file, a missing path or a tree no index covers', async () => {
    const { root, plan } = await setup(FILES)
    expect(reason(await plan('alpha', {}, join(root, 'a.txt')))).toMatch(/^no-index: the search path is a file/)
    expect(reason(await plan('alpha', {}, join(root, 'missing')))).toMatch(/^no-index: the search path does not exist/)
    expect(reason(await plan('alpha', {}, base))).toMatch(/^no-index: no index covers/)
  })

  it('reads the whole tree when most files may match', async () => {
    const { plan } = await setup(FILES)
    expect(reason(await plan('ha\\n|ta\\n|ma\\n'))).toMatch(/^broad: 3 of 3 files/)
  })

  it('reads the whole tree when too much changed', async () => {
    const { root, plan } = await setup(FILES, { changedMaxEntries: 1 })
    writeTree(root, { 'd.txt': 'x', 'e.txt': 'y' })
    expect(reason(await plan('alpha'))).toMatch(/^changed: \d+ files and directories changed/)
  })

  it('reads the whole tree when the search directory itself was replaced', async () => {
    const { root, plan } = await setup(FILES)
    // Another directory renamed into its place: a new inode (a directory made afresh may reuse the old one).
    writeTree(`${root}-other`, FILES)
    rmSync(root, { recursive: true })
    renameSync(`${root}-other`, root)
    expect(reason(await plan('alpha'))).toMatch(/^changed: the search directory is not the one indexed/)
  })

  it('reads the whole tree when the clock is earlier than the build', async () => {
    const { plan } = await setup(FILES)
    vi.spyOn(Date, 'now').mockReturnValue(0)
    expect(reason(await plan('alpha'))).toMatch(/^freshness: the clock is earlier/)
  })

  it('reads the whole tree when the change walk fails', async () => {
    const { plan } = await setup(FILES, {}, failingBash(bash, 'broken'))
    expect(reason(await plan('alpha'))).toMatch(/^freshness: the change walk did not finish \(broken\)/)
  })

  it('reads the whole tree for names an ignore file cannot hold', async () => {
    const { root, plan } = await setup({ ...FILES, 'new\nline.txt': 'alpha\n', 'x.txt': '1', 'y.txt': '2', 'z.txt': '3' })
    expect(reason(await plan('alpha'))).toMatch(/^names: a candidate file/)
    writeTree(root, { 'other\nname.txt': 'zzz' })
    expect(reason(await plan('beta'))).toMatch(/^names: a changed file/)
    rmSync(join(root, 'other\nname.txt'))
    mkdirSync(join(root, 'dir\nname'))
    expect(reason(await plan('beta'))).toMatch(/^names: a changed directory/)
    expect(reason(await plan('gamma', { followedLinks: [{ path: 'l\nk', directory: true }] }))).toMatch(/^names: a followed link/)
  })

  it('names every followed link and changed directory in the ignore file, each line once', async () => {
    const { root, plan } = await setup({ ...FILES, 'sub/d.txt': 'delta\n', 'x.txt': '1', 'y.txt': '2' })
    symlinkSync('sub', join(root, 'lnk'))
    // a.txt is chosen by the index and changed since the build: named once all the same.
    writeTree(root, { 'sub/new.txt': 'new\n', 'fresh/n.txt': 'n\n', 'a.txt': 'alpha again\n' })
    const answer = await plan('alpha', {
      followedLinks: [
        { path: 'lnk', directory: true },
        { path: 'f*le', directory: false },
      ],
    })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    const lines = readFileSync(answer.ignoreFile!, 'utf8').split('\n')
    expect(lines).toEqual(
      expect.arrayContaining(['!/a.txt', '!/lnk/**', '!/f\\*le', '!/*', '!/sub/*', '!/fresh/**', '!/sub/new.txt', '!/lnk']),
    )
    expect(lines.filter((line) => line === '!/a.txt')).toHaveLength(1)
    await answer.release()
  })

  it('takes back only the directories that lead to a candidate, so rg walks no other', async () => {
    const { root, plan } = await setup({ ...FILES, 'src/deep/d.txt': 'delta\n', 'src/deep/e.txt': 'delta too\n', 'other/x/y.txt': 'y\n' })
    const answer = await plan('delta')
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.ignoreFile!, 'utf8')).toBe('*\n!/src/\n!/src/deep/\n!/src/deep/d.txt\n!/src/deep/e.txt\n')
    // rg names each entry it ignores: `other` is one, and nothing below it is ever looked at.
    const run = spawnSync(rgPath, ['--no-config', '--debug', '--files', `--ignore-file=${answer.ignoreFile}`], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(run.stdout.split('\n').filter(Boolean).sort()).toEqual(['src/deep/d.txt', 'src/deep/e.txt'])
    expect(run.stderr).toMatch(/ignoring \.\/other: /)
    expect(run.stderr).not.toMatch(/other\/x/)
    await answer.release()
  })

  it('decodes an index once for the process, whichever instance asks, and keeps the last two', async () => {
    const { root, index, plan } = await setup(FILES)
    expect(await plan('alpha')).toMatchObject({ kind: 'candidates' })
    // The file's magic damaged in place, its inode, size and mtime kept: only a decode would notice
    // (the postings, which a search reads from the file, are left alone).
    const file = join(treeDir(index.settings.dir, root), INDEX_FILE)
    const { mtimeNs } = statSync(file, { bigint: true })
    const fd = openSync(file, 'r+')
    writeSync(fd, Buffer.alloc(8, 0x20), 0, 8, 0)
    closeSync(fd)
    execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file])
    const again = createLocalSearchIndex({ dir: index.settings.dir, broadFraction: 0.5, bash })
    const ask = (dir: string) => again.plan({ dir, pattern: 'alpha', caseInsensitive: false, multiline: false, signal })
    const first = await ask(root)
    expect(first).toMatchObject({ kind: 'candidates' })
    if (first.kind === 'candidates') await first.release()
    // Two other indexes used since: the first is decoded again, and refused.
    for (const other of [await setup(FILES), await setup(FILES)]) {
      const answer = await ask(other.root)
      expect(answer).toMatchObject({ kind: 'candidates' })
      if (answer.kind === 'candidates') await answer.release()
    }
    expect(reason(await ask(root))).toMatch(/^refused: not a dsh index file/)
  })

  it("reads an AND's lists that hold nearly every file, dense, for the files still standing", async () => {
    const others = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`z${i}.txt`, 'mmm\n']))
    const { root, plan } = await setup({ 'x.txt': 'kkkm\n', 'y.txt': 'kkkmmm\n', ...others })
    // kkk holds x and y; mmm, in every file but x, is dense (66 bytes for 32 files, not 93 in gaps), and
    // removes x.
    const both = await plan('kkk.*mmm')
    if (both.kind !== 'candidates') throw new Error(reason(both))
    expect(readFileSync(both.ignoreFile!, 'utf8')).toBe('*\n!/y.txt\n')
    const found = execFileSync(rgPath, ['--no-config', '-l', `--ignore-file=${both.ignoreFile}`, 'kkk.*mmm', '.'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(found).toBe('./y.txt\n')
    await both.release()
  })

  it('refuses an index whose postings name a file it does not hold', async () => {
    const { root, index, plan } = await setup(FILES)
    const keys = Uint32Array.from([(0x61 << 16) | (0x6c << 8) | 0x70])
    const { parts } = encodeIndex({
      header: { root, builtAtNs: '0', covers: 'test' },
      files: ['a.txt'],
      fileFlags: new Uint8Array(1),
      dirs: [['', 1]],
      keys,
      starts: Uint32Array.from([0, 3]),
      postings: [Uint8Array.from([5, 1, 0])],
    })
    writeFileSync(join(treeDir(index.settings.dir, root), INDEX_FILE), Buffer.concat([...parts]))
    // Only the list of `alp` is read: one a search never reads cannot mislead it.
    expect(reason(await plan('alp'))).toMatch(/^refused: an index posting names a file/)
  })

  it('reads a directory the build could not list whole', async () => {
    const { root, index, plan } = await setup(FILES)
    mkdirSync(join(root, 'src'))
    // Marked at src's own ctime, which the file system's coarse clock may put after Date.now()'s
    // millisecond: src is not a change since this build.
    const builtAtNs = statSync(join(root, 'src'), { bigint: true }).ctimeNs
    const { parts } = encodeIndex({
      header: { root, builtAtNs: String(builtAtNs), covers: 'test' },
      files: ['a.txt', 'b.txt', 'c.txt'],
      fileFlags: new Uint8Array(3),
      dirs: [
        ['', statSync(root).ino],
        ['src', statSync(join(root, 'src')).ino],
        ['locked', UNREAD_DIR],
        ['bad\nname', UNREAD_DIR],
      ],
      keys: new Uint32Array(0),
      starts: Uint32Array.from([0]),
      postings: [],
    })
    writeFileSync(join(treeDir(index.settings.dir, root), INDEX_FILE), Buffer.concat([...parts]))
    expect(reason(await plan('alpha'))).toMatch(/^names: an unread directory/)
    // Unread directories outside the search do not matter to it.
    const inSrc = await plan('alpha', {}, join(root, 'src'))
    if (inSrc.kind !== 'candidates') throw new Error(reason(inSrc))
    expect(readFileSync(inSrc.ignoreFile!, 'utf8')).toBe('*\n')
    await inSrc.release()
    // A search of the unread directory itself, or of one the index never saw, reads it all.
    mkdirSync(join(root, 'locked'))
    mkdirSync(join(root, 'unseen'))
    expect(reason(await plan('alpha', {}, join(root, 'locked')))).toMatch(/^changed: the search directory is not the one indexed/)
    expect(reason(await plan('alpha', {}, join(root, 'unseen')))).toMatch(/^changed: the search directory is not the one indexed/)
  })
})

describe('naming candidates to rg', () => {
  /** The plan's named paths (NUL-ended, latin1) and ignore lines, both sorted; checks both are private and removed on release. */
  async function split(answer: IndexAnswer): Promise<{ named: string[]; lines: string[] | undefined }> {
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    const files = [answer.namedFile, answer.ignoreFile].filter((f) => f !== undefined)
    for (const file of files) expect(statSync(file).mode & 0o777).toBe(0o600)
    const bytes = answer.namedFile === undefined ? Buffer.alloc(0) : readFileSync(answer.namedFile)
    if (bytes.length > 0) expect(bytes.at(-1)).toBe(0)
    const named = bytes.toString('latin1').split('\0').slice(0, -1).sort()
    expect(named).toHaveLength(answer.named)
    const lines = answer.ignoreFile === undefined ? undefined : readFileSync(answer.ignoreFile, 'latin1').split('\n').slice(1, -1).sort()
    await answer.release()
    for (const file of files) expect(() => statSync(file)).toThrow()
    return { named, lines }
  }

  /** rg's path for each file from the search directory, but those in `unreached`; every call recorded. */
  function rgList(unreached: string[] = []) {
    const asked: string[] = []
    const walked = (local: string) => {
      asked.push(local)
      return unreached.includes(local) ? undefined : `./${local}`
    }
    return { asked, walked }
  }

  it('names each candidate keyed without a NUL byte that rg walks to, and leaves the rest to the ignore file', async () => {
    const { root, index, plan } = await setup(
      {
        'a.txt': 'needle\n',
        'dir/b.txt': 'needle\n',
        'nul.bin': Buffer.from('needle\0\n') as unknown as string,
        'big.txt': `needle${'x'.repeat(100)}`,
        'skip.txt': 'needle\n',
        'new\nline.txt': 'needle\n',
        'other.txt': 'nothing\n',
      },
      { broadFraction: 1, fileMaxBytes: 50 },
    )
    // A name that is not UTF-8: no ignore line can hold it either.
    const latin1 = 'caf\xff.txt'
    writeFileSync(Buffer.from(`${root}/${latin1}`, 'latin1'), 'needle\n')
    await buildIndex(index.settings, root)
    const { asked, walked } = rgList(['skip.txt'])
    const answer = await plan('needle', { walked })
    expect(answer).toMatchObject({ kind: 'candidates', candidates: 7, named: 4, changed: 0 })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(answer.namedFile).toBe(answer.ignoreFile!.replace(/\.ignore$/, '.named'))
    expect(answer.namedFile).toMatch(new RegExp(`/query-${process.pid}-[0-9a-f]{12}\\.named$`))
    expect(readFileSync(answer.namedFile!).includes(Buffer.from([0x66, 0xff]))).toBe(true)
    // A NUL byte (rg would convert it named), read by every search (not keyed as rg reads it), not reached by rg's walk.
    expect(await split(answer)).toEqual({
      named: ['./a.txt', `./${latin1}`, './dir/b.txt', './new\nline.txt'],
      lines: ['!/big.txt', '!/nul.bin', '!/skip.txt'],
    })
    expect(asked.sort()).toEqual(['a.txt', latin1, 'dir/b.txt', 'new\nline.txt', 'skip.txt'])
    // One rg does not reach and no line can hold: the whole tree, as without names.
    expect(reason(await plan('needle', { walked: rgList(['new\nline.txt']).walked }))).toMatch(/^names: a candidate file/)
  })

  it('writes no ignore file when every candidate is named and nothing changed, and no named file when none is', async () => {
    const { plan } = await setup({ 'a.txt': 'needle\n', 'dir/b.txt': 'needle\n', 'c.txt': 'nothing\n', 'd.txt': 'nothing\n' })
    const { walked } = rgList()
    const all = await plan('needle', { walked })
    expect(all).toMatchObject({ kind: 'candidates', candidates: 2, named: 2, ignoreFile: undefined })
    expect(await split(all)).toEqual({ named: ['./a.txt', './dir/b.txt'], lines: undefined })
    const none = await plan('zzzz', { walked })
    expect(none).toMatchObject({ kind: 'candidates', candidates: 0, named: 0, ignoreFile: undefined, namedFile: undefined })
    expect(await split(none)).toEqual({ named: [], lines: undefined })
    // Without rg's list nothing is named: the ignore file holds `*` alone.
    const unnamed = await plan('zzzz')
    expect(unnamed).toMatchObject({ kind: 'candidates', named: 0, namedFile: undefined })
    expect(await split(unnamed)).toEqual({ named: [], lines: [] })
  })

  it('walks to what changed, a changed directory’s files, and all below a new directory, a followed link or an unread one', async () => {
    const files: Record<string, string> = {}
    for (const name of ['keep/k.txt', 'keep/changed.txt', 'own/x.txt', 'own/deep/y.txt', 'swap/z.txt', 'via/w.txt', 'locked/u.txt'])
      files[name] = 'needle\n'
    const { root, index, plan } = await setup(files, { broadFraction: 1 })
    // The build could not list `locked` (as past PATH_MAX): the index says so, its files kept.
    const file = join(treeDir(index.settings.dir, root), INDEX_FILE)
    const data = openIndexFile(file)
    const { parts } = encodeIndex({
      header: { root, builtAtNs: data.header.builtAtNs, covers: data.header.covers },
      files: Array.from({ length: data.files.length }, (_, id) => data.files.at(id)),
      fileFlags: data.fileFlags,
      fileTimes: data.fileTimes,
      dirs: [...data.dirs].map(([rel, inode]) => [rel, rel === 'locked' ? UNREAD_DIR : inode] as const),
      keys: data.keys,
      starts: data.starts,
      postings: [Buffer.from(data.postings(0, data.starts[data.keys.length]!))],
    })
    data.close()
    writeFileSync(file, Buffer.concat([...parts]))
    writeFileSync(join(root, 'keep/changed.txt'), 'needle again\n')
    writeFileSync(join(root, 'own/new.txt'), 'new\n')
    // Replaced while the old one still holds its inode: the new one has another.
    renameSync(join(root, 'swap'), join(root, 'swap-old'))
    writeTree(root, { 'swap/z.txt': 'needle\n' })
    rmSync(join(root, 'swap-old'), { recursive: true })
    const { asked, walked } = rgList()
    const answer = await plan('needle', { walked, followedLinks: [{ path: 'via', directory: true }] })
    const { named, lines } = await split(answer)
    // own/deep is not own's own entry: its file is named.
    expect(named).toEqual(['./keep/k.txt', './own/deep/y.txt'])
    expect(asked.sort()).toEqual(['keep/k.txt', 'own/deep/y.txt'])
    expect(lines).toEqual(
      expect.arrayContaining([
        '!/keep/changed.txt',
        '!/own/x.txt',
        '!/own/*',
        '!/swap/z.txt',
        '!/swap/**',
        '!/via/w.txt',
        '!/via/**',
        '!/locked/u.txt',
        '!/locked/**',
      ]),
    )
    expect(lines).not.toContain('!/keep/k.txt')
  })
})

describe('ignoreLine', () => {
  it('escapes glob characters and refuses newlines and bytes that are not UTF-8', () => {
    expect(ignoreLine('a b/[x]{y}*?!#\\.txt')).toBe('!/a\\ b/\\[x\\]\\{y\\}\\*\\?\\!\\#\\\\.txt')
    expect(ignoreLine('a\rb')).toBeUndefined()
    expect(ignoreLine(Buffer.from([0x61, 0xff]).toString('latin1'))).toBeUndefined()
  })
})

describe('the index file', () => {
  function sealed(encoded: ReturnType<typeof encodeIndex>): Buffer {
    const body = Buffer.concat([...encoded.parts].slice(0, -1))
    return Buffer.concat([body, createHash('sha256').update(body).digest()])
  }
  function reseal(bytes: Buffer): Buffer {
    const body = bytes.subarray(0, bytes.length - 32)
    return Buffer.concat([body, createHash('sha256').update(body).digest()])
  }
  const sections = {
    header: { root: '/r', builtAtNs: '1', covers: 'test' },
    files: ['a'],
    fileFlags: new Uint8Array(1),
    dirs: [['', 1]] as Array<[string, number]>,
    keys: Uint32Array.from([7]),
    starts: Uint32Array.from([0, 3]),
    postings: [Uint8Array.from([0, 1, 0])],
  }

  it('round-trips, and finds keys by binary search', () => {
    const data = decodeIndex(sealed(encodeIndex(sections)))
    expect(data.files.at(0)).toBe('a')
    expect(data.files.length).toBe(1)
    expect(findKey(data.keys, 7)).toBe(0)
    expect(findKey(Uint32Array.from([1, 3, 5]), 4)).toBe(-1)
    expect(findKey(Uint32Array.from([1, 3, 5]), 5)).toBe(2)
    expect(INDEX_FORMAT_VERSION).toBe(6)
    // No times given: none read.
    expect([...data.fileTimes.seconds]).toEqual([Number.NaN])
  })

  it("round-trips each file's modification time", () => {
    const fileTimes = { seconds: Float64Array.from([-2, 1_800_000_000.0]), nanos: Uint32Array.from([750_000_000, 999_999_999]) }
    const data = decodeIndex(sealed(encodeIndex({ ...sections, files: ['a', 'b'], fileFlags: new Uint8Array(2), fileTimes })))
    expect(data.fileTimes).toEqual(fileTimes)
  })

  it('refuses a header that is not JSON, sections past the end or that do not add up, and cut postings', () => {
    const good = sealed(encodeIndex(sections))
    const badJson = Buffer.from(good)
    badJson[16] = 0x7b + 1
    expect(() => decodeIndex(reseal(badJson))).toThrow(/not JSON/)
    const longer = sealed(encodeIndex({ ...sections, header: { ...sections.header, covers: 'x'.repeat(3) } }))
    const json = JSON.parse(longer.subarray(16, 16 + longer.readUInt32LE(12)).toString())
    const lie = (patch: Record<string, number>) => {
      const text = JSON.stringify({ ...json, ...patch })
      const head = Buffer.alloc(16)
      longer.copy(head, 0, 0, 12)
      head.writeUInt32LE(Buffer.byteLength(text), 12)
      const rest = longer.subarray(16 + longer.readUInt32LE(12) + ((4 - (longer.readUInt32LE(12) % 4)) % 4), longer.length - 32)
      const textBytes = Buffer.from(text)
      return reseal(Buffer.concat([head, textBytes, Buffer.alloc((4 - (textBytes.length % 4)) % 4), rest, Buffer.alloc(32)]))
    }
    expect(() => decodeIndex(lie({ postingBytes: 1000 }))).toThrow(/past the end/)
    expect(() => decodeIndex(lie({ postingBytes: 0 }))).toThrow(/do not add up/)
    expect(() => decodeIndex(lie({ filePathBytes: 0, dirPathBytes: 0, postingBytes: 4 }))).toThrow(/postings do not add up/)
    expect(() => decodeIndex(lie({ files: 2 }))).toThrow(IndexError)
    // Cut inside a gap, and after a gap before its positions.
    for (const postings of [
      [0x80, 0x80, 0x80],
      [0x00, 0x01, 0x00, 0x00],
    ]) {
      const cut = decodeIndex(
        sealed(encodeIndex({ ...sections, postings: [Uint8Array.from(postings)], starts: Uint32Array.from([0, postings.length]) })),
      )
      expect(() => readPostings(cut, 0)).toThrow(/posting list is cut/)
    }
  })

  it("reads an index file's postings from the file, and refuses one cut short after it was opened", () => {
    const file = join(base, 'opened.dshidx')
    writeFileSync(file, sealed(encodeIndex(sections)))
    const data = openIndexFile(file)
    expect(data.files.at(0)).toBe('a')
    expect(data.files.length).toBe(1)
    expect([...readPostings(data, 0)]).toEqual([0])
    truncateSync(file, 40)
    expect(() => readPostings(data, 0)).toThrow(/ended early/)
    data.close()
    // Refused when opened: the file is closed again.
    expect(() => openIndexFile(file)).toThrow(/not a dsh index file|checksum/)
  })

  it('loads an index file with its checksum read asynchronously, the same data, and refuses one cut short meanwhile', async () => {
    const file = join(base, 'loaded.dshidx')
    writeFileSync(file, sealed(encodeIndex(sections)))
    const data = await loadIndexFile(file)
    const opened = openIndexFile(file)
    expect([data.files.at(0), data.files.length, data.checksum]).toEqual([opened.files.at(0), opened.files.length, opened.checksum])
    expect([...readPostings(data, 0)]).toEqual([0])
    data.close()
    opened.close()
    // Cut after it was opened and sized: the read after the first 1 MiB slice comes back empty.
    writeFileSync(file, Buffer.alloc(3 << 20, 1))
    const loading = loadIndexFile(file)
    truncateSync(file, 40)
    await expect(loading).rejects.toThrow(/ended early/)
    // Damaged: refused, as openIndexFile refuses it.
    writeFileSync(file, Buffer.concat([sealed(encodeIndex(sections)).subarray(0, -1), Buffer.of(0)]))
    await expect(loadIndexFile(file)).rejects.toThrow(/checksum does not match/)
  })

  it('decodes a file once for searches that find it at once, and closes the decoding a newer one replaces', async () => {
    const file = join(base, 'shared.dshidx')
    writeFileSync(file, sealed(encodeIndex(sections)))
    const first = loadOnce(file, 'one')
    expect(loadOnce(file, 'one')).toBe(first)
    const older = await first
    const newer = await loadOnce(file, 'two')
    expect(newer).not.toBe(older)
    // The older decoding's file is closed: reading its postings fails; the newer's reads.
    expect(() => readPostings(older.data, 0)).toThrow()
    // Kept for the process, as a search's is: evicted (and closed) once two newer files are loaded.
    expect([...readPostings(newer.data, 0)]).toEqual([0])
  })

  it('refuses an index that lists no files but has postings that do not add up', () => {
    const empty = sealed(
      encodeIndex({
        ...sections,
        files: [],
        fileFlags: new Uint8Array(0),
        dirs: [],
        keys: new Uint32Array(0),
        starts: Uint32Array.from([0]),
        postings: [],
      }),
    )
    // No dirs and no keys: the starts, one entry, follow the header; it says 5 bytes of postings where there are none.
    const json = empty.readUInt32LE(12)
    empty.writeUInt32LE(5, 16 + json + ((4 - (json % 4)) % 4))
    expect(() => decodeIndex(reseal(empty))).toThrow(/postings do not add up/)
  })
})

describe('the change walk', () => {
  it('writes find times with nine fraction digits', () => {
    expect(findTime(1_700_000_000_000_000_005n)).toBe('@1700000000.000000005')
  })

  it('parses find records: the directory itself, nested paths, names with spaces', () => {
    expect(parseChanged(Buffer.from('d 1 .\0f 2 ./a b\0f 3 x\0'))).toEqual([
      { type: 'd', inode: 1, rel: '' },
      { type: 'f', inode: 2, rel: 'a b' },
      { type: 'f', inode: 3, rel: 'x' },
    ])
  })

  it('cannot vouch for an index when find overflows, times out or fails without a word', async () => {
    const fake = (result: Partial<BashRunResult>): BashExecutor => ({
      resolve: (request) => bash.resolve(request),
      run: async () => ({
        exitCode: 0,
        signal: null,
        stop: 'exit',
        durationMs: 1,
        stdout: { text: '', truncated: false, totalBytes: 0 },
        stderr: { text: '', truncated: false, totalBytes: 0 },
        ...result,
      }),
    })
    const limits = { maxBytes: 10, timeoutMs: 1000 }
    expect(await changedSince(fake({ stop: 'overflow' }), base, 0n, limits, signal)).toEqual({
      ok: false,
      why: 'the change walk did not finish (too many changes)',
    })
    expect(await changedSince(fake({ stop: 'timeout', exitCode: null }), base, 0n, limits, signal)).toEqual({
      ok: false,
      why: 'the change walk did not finish (timeout)',
    })
    expect(await changedSince(fake({ exitCode: 1 }), base, 0n, limits, signal)).toEqual({
      ok: false,
      why: 'the change walk did not finish (exit 1)',
    })
  })
})

describe('options and builds', () => {
  it('refuses bad options with INDEX_INVALID_CONFIG', () => {
    expect(() => resolveIndexOptions({ broadFraction: 2 })).toThrow(IndexError)
  })

  it('defaults to $XDG_CACHE_HOME/dsh/index, ignoring a relative XDG_CACHE_HOME', () => {
    vi.stubEnv('XDG_CACHE_HOME', '/xdg')
    expect(resolveIndexOptions({}).dir).toBe('/xdg/dsh/index')
    vi.stubEnv('XDG_CACHE_HOME', 'relative')
    expect(resolveIndexOptions({}).dir).toMatch(/\.cache\/dsh\/index$/)
    vi.unstubAllEnvs()
  })

  it('builds with as many workers as there are cores, at most four, unless told', () => {
    expect(resolveIndexOptions({}).buildWorkers).toBe(Math.min(availableParallelism(), 4))
    expect(resolveIndexOptions({ buildWorkers: 1 }).buildWorkers).toBe(1)
    for (const buildWorkers of [0, 1.5, 65]) expect(() => resolveIndexOptions({ buildWorkers })).toThrow(IndexError)
  })

  it('refuses to index a missing path or a file', async () => {
    const settings = resolveIndexOptions({ dir: join(base, 'index') })
    await expect(buildIndex(settings, join(base, 'missing'))).rejects.toMatchObject({ code: 'INDEX_BUILD_FAILED' })
    writeFileSync(join(base, 'plain'), 'x')
    await expect(buildIndex(settings, join(base, 'plain'))).rejects.toMatchObject({ code: 'INDEX_NOT_A_DIRECTORY' })
  })

  it('writes nothing when the whole file would pass indexMaxBytes, though its postings fit', async () => {
    const root = join(base, 'tight')
    writeTree(root, { 'a.txt': 'abcd' })
    await expect(buildIndex(resolveIndexOptions({ dir: join(base, 'tight-index'), indexMaxBytes: 100 }), root)).rejects.toMatchObject({
      code: 'INDEX_TOO_LARGE',
    })
  })

  it('merges postings past one segment and file ids past one varint byte, and finds every file a literal is in', async () => {
    const root = join(base, 'large')
    let seed = 7
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16
    const files: Record<string, Buffer> = {}
    // 260 files of 24 KB of random digits and letters: about 4.8 million (key, file) pairs, past one
    // 4-million-pair segment; a 12-character needle is in one file.
    const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'
    for (let f = 0; f < 260; f++)
      files[`f${f}.txt`] = Buffer.from(Array.from({ length: 24_000 }, () => ALPHABET.charCodeAt(random() % ALPHABET.length)))
    // Keys in one file only, so one segment has them and the other does not.
    files['odd.txt'] = Buffer.from('~~~###')
    writeTree(root, files)
    const index = createLocalSearchIndex({ dir: join(base, 'large-index'), bash })
    const report = await buildIndex(index.settings, root)
    expect(report.files).toBe(261)
    const needle = files['f200.txt']!.subarray(5000, 5012).toString()
    const answer = await index.plan({ dir: root, pattern: needle, caseInsensitive: false, multiline: false, signal })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.ignoreFile!, 'utf8')).toContain('!/f200.txt\n')
    await answer.release()
  })

  it('marks what it cannot open past PATH_MAX: a file every search reads, a directory read whole', async () => {
    const root = join(base, 'deep')
    // Directories nested until the path nears Linux's 4,096-byte PATH_MAX, made step by step from inside.
    const segment = 'd'.repeat(200)
    const depth = Math.ceil((4000 - root.length) / 201)
    const script = `mkdir -p "$1" && cd "$1" && for i in $(seq ${depth}); do mkdir ${segment} && cd ${segment}; done && echo x > ${'f'.repeat(200)} && mkdir ${'s'.repeat(200)}`
    execFileSync('bash', ['-c', script, 'bash', root])
    const report = await buildIndex(resolveIndexOptions({ dir: join(base, 'index') }), root)
    expect(report).toMatchObject({ files: 1, alwaysRead: 1 })
    execFileSync('bash', ['-c', `cd "$1" && rm -rf ${segment}`, 'bash', root])
  })

  it('marks files every search must read: too large, UTF-16, and skips VCS directories and links', async () => {
    const root = join(base, 'marks')
    writeTree(root, {
      'big.txt': 'x'.repeat(100),
      'utf16le.txt': Buffer.from([0xff, 0xfe, 0x61, 0x00]),
      'utf16be.txt': Buffer.from([0xfe, 0xff, 0x00, 0x61]),
      'small.txt': 'ok',
      '.git/HEAD': 'ref',
    })
    symlinkSync('small.txt', join(root, 'link.txt'))
    const report = await buildIndex(resolveIndexOptions({ dir: join(base, 'index'), fileMaxBytes: 50 }), root)
    expect(report).toMatchObject({ files: 4, alwaysRead: 3 })
    // Whatever the pattern, a search reads them.
    const index = createLocalSearchIndex({ dir: join(base, 'index'), fileMaxBytes: 50, broadFraction: 1, bash })
    const answer = await index.plan({ dir: root, pattern: 'nowhere', caseInsensitive: false, multiline: false, signal })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.ignoreFile!, 'utf8').split('\n').sort()).toEqual(['', '!/big.txt', '!/utf16be.txt', '!/utf16le.txt', '*'])
    await answer.release()
  })

  it('flags a keyed file that holds a NUL byte apart, and still chooses it by its trigrams', async () => {
    const root = join(base, 'nul')
    writeTree(root, { 'text.txt': 'needle\n', 'nul.bin': Buffer.from('needle\0after\n'), 'utf16.txt': Buffer.from([0xff, 0xfe, 0, 0]) })
    const index = createLocalSearchIndex({ dir: join(base, 'index'), broadFraction: 1, bash })
    expect(await buildIndex(index.settings, root)).toMatchObject({ files: 3, alwaysRead: 1 })
    const data = openIndexFile(join(treeDir(index.settings.dir, root), INDEX_FILE))
    const flags = Object.fromEntries(Array.from({ length: data.files.length }, (_, id) => [data.files.at(id), data.fileFlags[id]]))
    data.close()
    expect(flags).toEqual({ 'text.txt': FILE_INDEXED, 'nul.bin': FILE_INDEXED_NUL, 'utf16.txt': FILE_ALWAYS })
    const answer = await index.plan({ dir: root, pattern: 'after', caseInsensitive: false, multiline: false, signal })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.ignoreFile!, 'utf8').split('\n').sort()).toEqual(['', '!/nul.bin', '!/utf16.txt', '*'])
    await answer.release()
  })

  it('keys a file larger than its first read buffer whole', async () => {
    const root = join(base, 'large-file')
    writeTree(root, { 'big.txt': `${'filler text '.repeat(200_000)}needle at the end\n`, 'small.txt': 'small\n' })
    const index = createLocalSearchIndex({ dir: join(base, 'index'), broadFraction: 1, bash })
    expect(await buildIndex(index.settings, root)).toMatchObject({ files: 2, alwaysRead: 0 })
    const answer = await index.plan({ dir: root, pattern: 'needle at the end', caseInsensitive: false, multiline: false, signal })
    if (answer.kind !== 'candidates') throw new Error(reason(answer))
    expect(readFileSync(answer.ignoreFile!, 'utf8')).toBe('*\n!/big.txt\n')
    await answer.release()
  })
})

describe('reading a file to key', () => {
  const dir = join(base, 'read')
  writeTree(dir, { 'file.txt': 'twelve bytes' })
  const path = (name: string) => Buffer.from(join(dir, name))

  it('reads a regular file into the buffer, or asks for a larger one', () => {
    const scratch = Buffer.alloc(64)
    expect(readForIndex(path('file.txt'), 100, scratch)).toBe(12)
    expect(scratch.subarray(0, 12).toString()).toBe('twelve bytes')
    expect(readForIndex(path('file.txt'), 100, Buffer.alloc(12))).toEqual({ scratch: expect.objectContaining({ length: 24 }) })
    expect(readForIndex(path('file.txt'), 11, scratch)).toBeUndefined()
  })

  it('gives the modification time as the kernel keeps it, also of a file too large to key, and before 1970', () => {
    const time = { seconds: 0, nanos: 0 }
    const timeOf = (name: string) => {
      const ns = lstatSync(join(dir, name), { bigint: true }).mtimeNs
      return { seconds: Number(ns / 1_000_000_000n), nanos: Number(ns % 1_000_000_000n) }
    }
    expect(readForIndex(path('file.txt'), 100, Buffer.alloc(64), time)).toBe(12)
    expect(time).toEqual(timeOf('file.txt'))
    expect(readForIndex(path('file.txt'), 11, Buffer.alloc(64), time)).toBeUndefined()
    expect(time).toEqual(timeOf('file.txt'))
    // 1.25 s before the epoch: two whole seconds back, and 750 ms after that.
    writeFileSync(join(dir, 'old.txt'), 'old')
    execFileSync('touch', ['-d', '1969-12-31 23:59:58.75 UTC', join(dir, 'old.txt')])
    expect(readForIndex(path('old.txt'), 100, Buffer.alloc(64), time)).toBe(3)
    expect(time).toEqual({ seconds: -2, nanos: 750_000_000 })
    expect(readForIndex(path('missing'), 100, Buffer.alloc(64), time)).toBeUndefined()
    expect(time.seconds).toBeNaN()
  })

  it('keys nothing it cannot read as rg would: gone, a link, a FIFO (without waiting for a writer), unreadable', () => {
    symlinkSync('file.txt', join(dir, 'link'))
    execFileSync('mkfifo', [join(dir, 'fifo')])
    const scratch = Buffer.alloc(64)
    expect(readForIndex(path('missing'), 100, scratch)).toBeUndefined()
    expect(readForIndex(path('link'), 100, scratch)).toBeUndefined()
    expect(readForIndex(path('fifo'), 100, scratch)).toBeUndefined()
    // A read that fails after the open: the kernel refuses reads of unmapped memory.
    expect(readForIndex(Buffer.from('/proc/self/mem'), 100, scratch)).toBeUndefined()
    const time = { seconds: 0, nanos: 0 }
    for (const name of ['missing', 'link', 'fifo']) {
      readForIndex(path(name), 100, scratch, time)
      expect(time.seconds).toBeNaN()
    }
  })

  it('reads on past the size the file reported, into a larger buffer, within the limit', () => {
    // /proc files report a size of 0 and hold more.
    const status = Buffer.from('/proc/self/status')
    expect(readForIndex(status, 1 << 20, Buffer.alloc(16))).toEqual({ scratch: expect.objectContaining({ length: 32 }) })
    expect(readForIndex(status, 10, Buffer.alloc(16))).toBeUndefined()
    expect(readForIndex(status, 1 << 20, Buffer.alloc(1 << 16))).toBeGreaterThan(100)
  })
})
