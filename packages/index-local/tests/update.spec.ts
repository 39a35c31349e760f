// An index updated with what changed since its build: what it keys, when it builds whole instead, and how searches read it.
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { BashExecutor, IndexAnswer } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { buildIndex, closeIndexWatchers, createLocalSearchIndex, updateIndex, type IndexReport } from '../src/index.js'
import { encodeIndex, FILE_INDEXED, FILE_INDEXED_NUL, openIndexFile } from '../src/format.js'
import { INDEX_FILE, treeDir, UPDATE_FILE } from '../src/location.js'
import { failingBash } from '../../../test-support/failing-bash.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'

const base = scratchDir('index-update')
const signal = new AbortController().signal
const bash = createLocalBash({})
let count = 0

afterEach(async () => {
  await closeIndexWatchers()
  vi.restoreAllMocks()
})

async function setup(files: Record<string, string>, options: Record<string, unknown> = {}) {
  const root = join(base, `t${count++}`)
  writeTree(root, files)
  const index = createLocalSearchIndex({ dir: join(base, 'index'), broadFraction: 1, buildWorkers: 1, ...options, bash })
  await buildIndex(index.settings, root)
  const home = treeDir(index.settings.dir, root)
  const update = (executor: BashExecutor = bash, extra: Record<string, unknown> = {}) =>
    updateIndex({ ...index.settings, ...extra }, root, executor)
  return { root, index, home, update }
}

function reason(answer: IndexAnswer): string {
  return answer.kind === 'full-scan' ? `${answer.reason}: ${answer.detail}` : 'candidates'
}

/** The plan's ignore lines after the first (`*`), sorted, and how many entries it read as changed. */
async function planned(index: ReturnType<typeof createLocalSearchIndex>, dir: string, pattern: string) {
  const answer = await index.plan({ dir, pattern, caseInsensitive: false, multiline: false, signal })
  if (answer.kind !== 'candidates') throw new Error(reason(answer))
  const lines = readFileSync(answer.ignoreFile!, 'utf8').trim().split('\n').slice(1).sort()
  await answer.release()
  return { lines, changed: answer.changed }
}

function kindOf(report: IndexReport): string {
  return report.kind === 'update' ? 'update' : `build${report.why === undefined ? '' : `: ${report.why}`}`
}

describe('an update', () => {
  it('keys changed files, the own files of a changed directory and new directories whole, and searches read it', async () => {
    const { root, index, update } = await setup({
      'a.txt': 'alpha\n',
      'b.txt': 'beta\n',
      'old/c.txt': 'gamma\n',
      'old/deep/d.txt': 'delta alpha\n',
      'keep/e.txt': 'epsilon\n',
    })
    // Before the update, the search reads the changes since the build (b, the new directory, the move).
    writeFileSync(join(root, 'b.txt'), 'beta alpha\n')
    mkdirSync(join(root, 'fresh/deeper'), { recursive: true })
    writeFileSync(join(root, 'fresh/deeper/f.txt'), 'alpha in a new directory\n')
    renameSync(join(root, 'old'), join(root, 'moved'))
    symlinkSync('a.txt', join(root, 'link.txt'))
    rmSync(join(root, 'a.txt'))
    const before = await planned(index, root, 'alpha')
    expect(before.changed).toBeGreaterThan(0)

    const report = await update()
    expect(kindOf(report)).toBe('update')
    if (report.kind !== 'update') throw new Error('not an update')
    // The root's own files (b, the link is none), the moved directory whole, the new one whole.
    expect(report.files).toBe(4)
    expect(report.changed).toBeGreaterThanOrEqual(5)
    expect(report.indexPath).toBe(join(treeDir(index.settings.dir, root), UPDATE_FILE))
    expect(statSync(report.indexPath).mode & 0o777).toBe(0o600)
    const update1 = openIndexFile(report.indexPath)
    const baseFile = openIndexFile(report.basePath)
    expect(update1.header.base).toEqual({ checksum: baseFile.checksum, builtAtNs: baseFile.header.builtAtNs })
    update1.close()
    baseFile.close()

    // After it, nothing changed since the update: the update's files decide, the index's the rest.
    // a.txt is gone but the index still names it (a line for a missing file costs nothing).
    const after = await planned(index, root, 'alpha')
    expect(after.changed).toBe(0)
    expect(after.lines).toEqual([
      '!/a.txt',
      '!/b.txt',
      '!/fresh/',
      '!/fresh/deeper/',
      '!/fresh/deeper/f.txt',
      '!/moved/',
      '!/moved/deep/',
      '!/moved/deep/d.txt',
      '!/old/',
      '!/old/deep/',
      '!/old/deep/d.txt',
    ])
    // A file the update keyed again no longer matches: the index's word for it is not taken.
    writeFileSync(join(root, 'keep/e.txt'), 'epsilon alpha\n')
    writeFileSync(join(root, 'b.txt'), 'beta\n')
    expect((await update()).kind).toBe('update')
    const again = await planned(index, root, 'alpha')
    expect(again.lines).not.toContain('!/b.txt')
    expect(again.lines).toContain('!/keep/e.txt')
    // Changes after the update are read from its mark.
    writeFileSync(join(root, 'late.txt'), 'alpha late\n')
    const late = await planned(index, root, 'alpha')
    expect(late.changed).toBe(2)
    expect(late.lines).toContain('!/late.txt')
  })

  it('is read by a warm process: its watcher starts again from the update', async () => {
    const { root, update } = await setup({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' })
    const index = createLocalSearchIndex({ dir: join(base, 'index'), broadFraction: 1, watch: true, bash })
    expect((await planned(index, root, 'omega')).lines).toEqual([])
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    expect((await update()).kind).toBe('update')
    const served = await planned(index, root, 'omega')
    expect(served).toEqual({ lines: ['!/b.txt'], changed: 0 })
    mkdirSync(join(root, 'sub'))
    writeFileSync(join(root, 'sub/d.txt'), 'omega\n')
    // The watcher named sub: read whole.
    expect((await planned(index, root, 'omega')).lines).toContain('!/sub/**')
  })

  it('is not read once a rebuild replaced its index, nor when damaged, foreign or of another build', async () => {
    const { root, index, home, update } = await setup({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' })
    writeFileSync(join(root, 'b.txt'), 'omega\n')
    expect((await update()).kind).toBe('update')
    expect((await planned(index, root, 'omega')).lines).toEqual(['!/b.txt'])
    const kept = join(base, `kept-${count}`)
    copyFileSync(join(home, UPDATE_FILE), kept)
    // A rebuild removes the update; one put back names another base and is not read.
    await buildIndex(index.settings, root)
    expect(readdirSync(home)).not.toContain(UPDATE_FILE)
    copyFileSync(kept, join(home, UPDATE_FILE))
    chmodSync(join(home, UPDATE_FILE), 0o600)
    writeFileSync(join(root, 'c.txt'), 'omega\n')
    expect(await planned(index, root, 'omega')).toEqual({ lines: ['!/b.txt', '!/c.txt'], changed: 1 })
    // Forged beside this index: another root, another build's mark; then damaged, then open to others.
    const data = openIndexFile(join(home, INDEX_FILE))
    const forge = (header: Record<string, unknown>) => {
      const { parts } = encodeIndex({
        header: {
          root,
          builtAtNs: `${BigInt(Date.now()) * 1_000_000n}`,
          covers: '',
          base: { checksum: data.checksum, builtAtNs: data.header.builtAtNs },
          ...header,
        },
        files: ['c.txt'],
        fileFlags: new Uint8Array(1),
        dirs: [],
        keys: new Uint32Array(0),
        starts: new Uint32Array(1),
        postings: [],
      })
      writeFileSync(join(home, UPDATE_FILE), Buffer.concat([...parts]), { mode: 0o600 })
    }
    for (const header of [{ root: '/elsewhere' }, { base: { checksum: data.checksum, builtAtNs: '1' } }, { base: undefined }]) {
      forge(header)
      // Read as no update: c.txt still read as changed since the build.
      expect(await planned(index, root, 'omega'), JSON.stringify(header)).toEqual({ lines: ['!/b.txt', '!/c.txt'], changed: 1 })
    }
    // The forged update read, to show the ones above were refused for their fields alone: c has no key.
    forge({})
    expect(await planned(index, root, 'omega')).toEqual({ lines: ['!/b.txt'], changed: 0 })
    writeFileSync(join(home, UPDATE_FILE), 'not an index')
    expect((await planned(index, root, 'omega')).lines).toEqual(['!/b.txt', '!/c.txt'])
    forge({})
    chmodSync(join(home, UPDATE_FILE), 0o666)
    expect((await planned(index, root, 'omega')).lines).toEqual(['!/b.txt', '!/c.txt'])
    // Read, then removed: the changes since the build are read again.
    chmodSync(join(home, UPDATE_FILE), 0o600)
    expect((await planned(index, root, 'omega')).lines).toEqual(['!/b.txt'])
    rmSync(join(home, UPDATE_FILE))
    expect(await planned(index, root, 'omega')).toEqual({ lines: ['!/b.txt', '!/c.txt'], changed: 1 })
    data.close()
  })

  it('is closed with its index when the index is rebuilt or no longer kept', async () => {
    const first = await setup({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' })
    writeFileSync(join(first.root, 'b.txt'), 'omega\n')
    await first.update()
    expect((await planned(first.index, first.root, 'omega')).lines).toEqual(['!/b.txt'])
    // Two other indexes used since: the first, update and all, is dropped, then decoded again.
    for (const other of [await setup({ 'x.txt': 'omega\n' }), await setup({ 'y.txt': 'omega\n' })]) {
      expect((await planned(first.index, other.root, 'omega')).lines).toHaveLength(1)
    }
    expect((await planned(first.index, first.root, 'omega')).lines).toEqual(['!/b.txt'])
    // Rebuilt: the index read again, its update gone with it.
    await buildIndex(first.index.settings, first.root)
    expect(await planned(first.index, first.root, 'omega')).toEqual({ lines: ['!/b.txt'], changed: 0 })
  })
})

describe('an update of a damaged index', () => {
  it('names the checksum the index states, and searches refuse both', async () => {
    const { root, index, home, update } = await setup({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' })
    // A byte of the checksum itself: every section still adds up, so only reading the file through tells.
    const file = join(home, INDEX_FILE)
    const bytes = readFileSync(file)
    bytes[bytes.length - 1]! ^= 0xff
    writeFileSync(file, bytes)
    writeFileSync(join(root, 'b.txt'), 'alpha\n')
    expect((await update()).kind).toBe('update')
    const answer = await index.plan({ dir: root, pattern: 'alpha', caseInsensitive: false, multiline: false, signal })
    expect(reason(answer)).toMatch(/^refused: the index checksum does not match/)
  })
})

describe('an index built whole instead', () => {
  it('when there is none, or when asked', async () => {
    const root = join(base, `t${count++}`)
    writeTree(root, { 'a.txt': 'alpha\n' })
    const index = createLocalSearchIndex({ dir: join(base, 'index'), bash })
    expect(kindOf(await updateIndex(index.settings, root, bash))).toBe('build')
    expect(kindOf(await updateIndex(index.settings, root, bash, { rebuild: true }))).toBe('build')
  })

  it('when the index is refused, of another tree, or the clock is behind it', async () => {
    const { root, home, update } = await setup({ 'a.txt': 'alpha\n' })
    const other = await setup({ 'b.txt': 'beta\n' })
    copyFileSync(join(other.home, INDEX_FILE), join(home, INDEX_FILE))
    expect(kindOf(await update())).toMatch(/^build: the index is of another tree/)
    writeFileSync(join(home, INDEX_FILE), 'damaged')
    expect(kindOf(await update())).toMatch(/^build: the index was refused: not a dsh index file/)
    vi.spyOn(Date, 'now').mockReturnValue(0)
    expect(kindOf(await update())).toBe('build: the clock is earlier than the index build')
    vi.restoreAllMocks()
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('when the change walk fails, too much changed, or the tree was replaced', async () => {
    const { root, update } = await setup({ 'a.txt': 'alpha\n', 'dir/b.txt': 'b\n', 'dir/c.txt': 'c\n', 'dir/d.txt': 'd\n' })
    expect(kindOf(await update(failingBash(bash, 'no-find')))).toMatch(/^build: the change walk did not finish \(no-find\)/)
    // A new file in dir: two entries changed, four files to key (dir's own).
    writeFileSync(join(root, 'dir/e.txt'), 'e\n')
    expect(kindOf(await update(bash, { changedMaxEntries: 3 }))).toBe('build: 4 files to key since the build (changedMaxEntries 3)')
    writeFileSync(join(root, 'dir/f.txt'), 'f\n')
    writeFileSync(join(root, 'a.txt'), 'a\n')
    expect(kindOf(await update(bash, { changedMaxEntries: 2 }))).toBe(
      'build: 3 files and directories changed since the build (changedMaxEntries 2)',
    )
    renameSync(root, `${root}-gone`)
    writeTree(root, { 'a.txt': 'alpha\n' })
    expect(kindOf(await update())).toBe('build: the tree was replaced since the build')
  })

  it('writes nothing past indexMaxBytes, and removes what a killed update left', async () => {
    const { root, home, update } = await setup({ 'a.txt': 'alpha\n' })
    writeFileSync(join(root, 'a.txt'), 'omega\n')
    const size = statSync(join(home, INDEX_FILE)).size
    await expect(update(bash, { indexMaxBytes: size + 1 })).rejects.toMatchObject({ code: 'INDEX_TOO_LARGE' })
    expect(readdirSync(home)).not.toContain(UPDATE_FILE)
    writeFileSync(join(home, `${UPDATE_FILE}.tmp-1-2`), 'left')
    expect((await update()).kind).toBe('update')
    expect(readdirSync(home).filter((name) => name.startsWith(UPDATE_FILE))).toEqual([UPDATE_FILE])
  })
})

describe('a changed directory listed for an update', () => {
  /** An executor that runs the walk (every part of it), then changes the tree before the update lists it. */
  function racing(after: () => void): BashExecutor {
    // The walk resolves every part before it runs any: the last part to finish changes the tree.
    let pending = 0
    return {
      resolve: (request) => {
        pending++
        return bash.resolve(request)
      },
      run: async (spec) => {
        const run = await bash.run(spec)
        if (--pending === 0) after()
        return run
      },
    }
  }

  it('flags a file it keys that holds a NUL byte apart', async () => {
    const { root, update } = await setup({ 'a.txt': 'alpha\n' })
    writeFileSync(join(root, 'nul.bin'), Buffer.from('alpha\0omega\n'))
    writeFileSync(join(root, 'b.txt'), 'alpha beta\n')
    const report = await update()
    if (report.kind !== 'update') throw new Error(kindOf(report))
    expect(report.alwaysRead).toBe(0)
    const data = openIndexFile(report.indexPath)
    const flags = Object.fromEntries(Array.from({ length: data.files.length }, (_, id) => [data.files.at(id), data.fileFlags[id]]))
    data.close()
    expect(flags).toEqual({ 'a.txt': FILE_INDEXED, 'b.txt': FILE_INDEXED, 'nul.bin': FILE_INDEXED_NUL })
  })

  it('is listed whole when replaced after the walk, and read whole by every search when gone', async () => {
    const { root, index, update } = await setup({
      'a.txt': 'alpha\n',
      'dir/b.txt': 'beta\n',
      'dir/sub/c.txt': 'gamma\n',
      'e/f.txt': 'phi\n',
    })
    writeFileSync(join(root, 'dir/new.txt'), 'omega\n')
    writeFileSync(join(root, 'e/new.txt'), 'omega\n')
    const report = await update(
      racing(() => {
        // dir replaced by another with a subdirectory; e removed, so it cannot be listed.
        renameSync(join(root, 'dir'), join(root, 'dir-old'))
        writeTree(join(root, 'dir'), { 'new.txt': 'omega\n', 'sub2/g.txt': 'omega\n' })
        rmSync(join(root, 'e'), { recursive: true })
      }),
    )
    expect(report.kind).toBe('update')
    if (report.kind !== 'update') throw new Error('not an update')
    // dir's two files, whole; e's new file, named by the walk, which cannot be read now.
    expect(report.files).toBe(3)
    expect(report.alwaysRead).toBe(1)
    rmSync(join(root, 'dir-old'), { recursive: true })
    const plan = await planned(index, root, 'omega')
    // e, gone, is read whole (a directory the update could not list); dir's files matched as keyed.
    expect(plan.lines).toEqual(expect.arrayContaining(['!/dir/new.txt', '!/dir/sub2/g.txt', '!/e/**']))
  })
})
