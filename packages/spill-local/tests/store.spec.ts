import { execFile } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { SpillSaveRequest } from '@dsh/core'
import { createLocalSpillStore } from '@dsh/spill-local'
import { budgetMs } from '../../../test-support/budget.js'
import { bundleScript } from '../../../test-support/bundle.js'
import { scratchDir } from '../../../test-support/temp-tree.js'

const execFileAsync = promisify(execFile)

const scratch = scratchDir('spill-local-store')
let rootCount = 0
const freshRoot = (): string => join(scratch, `root-${++rootCount}`)

const source = { toolName: 'grep', callId: 'call-1', label: 'result' }
const request = (overrides: Partial<SpillSaveRequest> = {}): SpillSaveRequest => ({
  owner: 'session-1',
  source,
  text: 'line 1\nline 2\n',
  filename: 'grep-results.txt',
  ...overrides,
})

function insideRoot(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== '' && !rel.split(sep).includes('..') && !rel.startsWith(sep)
}

describe('saveText', () => {
  it('writes the text at <root>/<owner>/<id>-<filename> and returns the absolute path and a hint', async () => {
    const root = freshRoot()
    const saved = await createLocalSpillStore({ root }).saveText(request())
    expect(saved.locator).toMatch(new RegExp(`^${join(root, 'session-1')}/[0-9a-f]{12}-grep-results\\.txt$`))
    expect(readFileSync(saved.locator, 'utf8')).toBe('line 1\nline 2\n')
    expect(saved.retrievalHint).toBe('Use read with offset/limit, or grep this path to search within it.')
  })

  it('creates the root and owner directories 0700 and the file 0600 whatever the umask', async () => {
    const root = freshRoot()
    const previous = process.umask(0o000)
    try {
      const saved = await createLocalSpillStore({ root }).saveText(request())
      expect(statSync(root).mode & 0o777).toBe(0o700)
      expect(statSync(dirname(saved.locator)).mode & 0o777).toBe(0o700)
      expect(statSync(saved.locator).mode & 0o777).toBe(0o600)
    } finally {
      process.umask(previous)
    }
  })

  it('leaves the mode of an existing root alone', async () => {
    const root = mkdtempSync(join(scratch, 'existing-'))
    const before = statSync(root).mode
    await createLocalSpillStore({ root }).saveText(request())
    expect(statSync(root).mode).toBe(before)
  })

  it.each([
    ['../../etc', 'passwd'],
    ['/abs/olute', '/etc/passwd'],
    ['a/b', 'c/../../d.txt'],
    ['..', '..'],
    ['.', '.'],
    ['owner\nwith\0control\x1b[31m', 'file\nname\0.txt'],
    ['', ''],
    ['x'.repeat(500), `${'y'.repeat(500)}.txt`],
  ])('keeps owner %j and filename %j inside the root as one clean component each', async (owner, filename) => {
    const root = freshRoot()
    const saved = await createLocalSpillStore({ root }).saveText(request({ owner, filename }))
    expect(insideRoot(root, saved.locator)).toBe(true)
    const [ownerDir, file, ...rest] = relative(root, saved.locator).split(sep)
    expect(rest).toEqual([])
    for (const component of [ownerDir!, file!]) {
      expect(component).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/)
      expect(component.length).toBeLessThanOrEqual(120)
    }
    expect(readFileSync(saved.locator, 'utf8')).toBe('line 1\nline 2\n')
  })

  it('keeps 50 concurrent saves intact, each at its own locator', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    const texts = Array.from({ length: 50 }, (_, i) => `result ${i}\n`.repeat(1_000 + i))
    const saved = await Promise.all(texts.map((text, i) => store.saveText(request({ text, owner: `s${i % 3}` }))))
    expect(new Set(saved.map((s) => s.locator)).size).toBe(50)
    saved.forEach((s, i) => expect(readFileSync(s.locator, 'utf8')).toBe(texts[i]))
    const names = [...readdirSync(root), ...readdirSync(root).flatMap((owner) => readdirSync(join(root, owner)))]
    expect(names.filter((name) => name.startsWith('.tmp-'))).toEqual([])
  })

  it('keeps every locator of 100 parallel saves under a budget they overrun together', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root, maxBytesPerOwner: 1_000 })
    const texts = Array.from({ length: 100 }, (_, i) => `result ${String(i).padStart(3, '0')}\n`.repeat(10))
    const saved = await Promise.all(texts.map((text) => store.saveText(request({ text }))))
    saved.forEach((s, i) => expect(readFileSync(s.locator, 'utf8')).toBe(texts[i]))
  })

  it(
    'keeps every locator of saves from 10 processes at once under a budget they overrun together',
    async () => {
      const root = freshRoot()
      const script = join(scratch, 'child-saver.mjs')
      await bundleScript(fileURLToPath(new URL('./child-saver.ts', import.meta.url)), script)
      const options = JSON.stringify({ root, maxBytesPerOwner: 1_000 })
      const runs = Array.from({ length: 10 }, () => execFileAsync(process.execPath, [script, options, 'cli', '10'], { encoding: 'utf8' }))
      const locators = (await Promise.all(runs)).flatMap(({ stdout }) => JSON.parse(stdout) as string[])
      expect(locators).toHaveLength(100)
      for (const locator of locators) expect(existsSync(locator), locator).toBe(true)
    },
    budgetMs(30_000),
  )

  it('fails with SPILL_WRITE_FAILED, keeping the cause, when the root cannot be created', async () => {
    const blocker = join(scratch, 'a-file')
    writeFileSync(blocker, 'not a directory')
    const store = createLocalSpillStore({ root: join(blocker, 'spill') })
    await expect(store.saveText(request())).rejects.toMatchObject({
      name: 'SpillError',
      code: 'SPILL_WRITE_FAILED',
      message: expect.stringContaining('could not save the complete grep result'),
      cause: expect.objectContaining({ code: 'ENOTDIR' }),
    })
  })

  it('fails with SPILL_WRITE_FAILED under a root the kernel refuses to write (/proc)', async () => {
    const store = createLocalSpillStore({ root: '/proc/dsh-spill' })
    await expect(store.saveText(request())).rejects.toMatchObject({ code: 'SPILL_WRITE_FAILED' })
  })
})

describe('saveStream', () => {
  it('writes the blocks at a locator readText serves back whole', async () => {
    const store = createLocalSpillStore({ root: freshRoot() })
    const saved = await store.saveStream({
      owner: 'session-1',
      source,
      filename: 'grep-results.txt',
      blocks: [Buffer.from('Found 2'), Buffer.from(' matches\n')],
    })
    expect(await store.readText(saved.locator)).toBe('Found 2 matches\n')
    expect(saved.retrievalHint).toBe('Use read with offset/limit, or grep this path to search within it.')
  })

  it('counts the streamed bytes against the owner budget', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root, maxBytesPerOwner: 1_000, minAgeMs: 0 })
    const older = await store.saveText(request({ text: 'a'.repeat(600) }))
    // File times tick coarsely (a few ms): two saves in one tick would tie, and the tie goes by the random name.
    const past = new Date(Date.now() - 60_000)
    utimesSync(older.locator, past, past)
    await store.saveStream({ owner: 'session-1', source, filename: 'grep-results.txt', blocks: [Buffer.alloc(600, 0x62)] })
    expect(existsSync(older.locator)).toBe(false)
  })

  it('fails with SPILL_WRITE_FAILED and leaves no file when the producer throws', async () => {
    const root = freshRoot()
    function* failing(): Generator<Uint8Array> {
      yield Buffer.from('half a result')
      throw new Error('the formatter failed')
    }
    const store = createLocalSpillStore({ root })
    await expect(store.saveStream({ owner: 'session-1', source, filename: 'grep-results.txt', blocks: failing() })).rejects.toMatchObject({
      code: 'SPILL_WRITE_FAILED',
      message: expect.stringContaining('the formatter failed'),
    })
    expect(readdirSync(join(root, readdirSync(root)[0]!)).filter((name) => !name.startsWith('.dsh'))).toEqual([])
  })
})

describe('readText', () => {
  it('reads back exactly what was saved, by its locator', async () => {
    const store = createLocalSpillStore({ root: freshRoot() })
    const text = 'ünïcode\nline 2\n'.repeat(1000)
    const saved = await store.saveText(request({ text }))
    expect(await store.readText(saved.locator)).toBe(text)
  })

  it.each([
    [
      'outside the root',
      (root: string) => join(root, '..', 'elsewhere.txt'),
      'SPILL_PATH_ESCAPE',
      /refusing to read .*: it is not inside the spill root/,
    ],
    ['the root itself', (root: string) => root, 'SPILL_PATH_ESCAPE', /refusing to read/],
    [
      'missing',
      (root: string) => join(root, 'session-1', 'gone.txt'),
      'SPILL_NOT_FOUND',
      /no saved result at .*gone\.txt: .*run the search again/,
    ],
  ])('refuses a locator %s', async (_what, locator, code, message) => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    await store.saveText(request())
    await expect(store.readText(locator(root))).rejects.toMatchObject({ code, message: expect.stringMatching(message) })
  })

  it('refuses a symbolic link or a directory inside the root', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    const saved = await store.saveText(request())
    const secret = join(scratch, 'secret.txt')
    writeFileSync(secret, 'secret')
    const link = join(dirname(saved.locator), 'link.txt')
    symlinkSync(secret, link)
    await expect(store.readText(link)).rejects.toMatchObject({
      code: 'SPILL_READ_FAILED',
      message: expect.stringMatching(/not a regular file/),
    })
    await expect(store.readText(dirname(saved.locator))).rejects.toMatchObject({ code: 'SPILL_READ_FAILED' })
  })
})

describe('holds', () => {
  it('holds a result it saved for the owner, and nothing else under its root', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    const saved = await store.saveText(request())
    expect(await store.holds(saved.locator, 'session-1')).toBe(true)
    // Another session's result is judged by the policy like any other path.
    expect(await store.holds(saved.locator, 'session-2')).toBe(false)
    expect(await store.holds(root, 'session-1')).toBe(false)
    expect(await store.holds(dirname(saved.locator), 'session-1')).toBe(false)
    expect(await store.holds(join(dirname(saved.locator), '.dsh-spill-owner'), 'session-1')).toBe(false)
    expect(await store.holds(join(root, '..', 'elsewhere'), 'session-1')).toBe(false)
    expect(await store.holds(`${root}-sibling/x.txt`, 'session-1')).toBe(false)
  })

  it('holds nothing of a root of "." but its own results: a user file named like one is not exempt', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    const saved = await store.saveText(request())
    // A file of the user's beside the root's owner directory, one planted in it, and a look-alike directory.
    writeFileSync(join(root, '.env'), 'KEY=1\n')
    expect(await store.holds(join(root, '.env'), 'session-1')).toBe(false)
    const planted = join(dirname(saved.locator), 'not-a-result.txt')
    writeFileSync(planted, 'x')
    expect(await store.holds(planted, 'session-1')).toBe(false)
    const lookalike = join(root, 'session-3')
    mkdirSync(lookalike, { mode: 0o755 })
    writeFileSync(join(lookalike, '.dsh-spill-owner'), 'forged\n')
    writeFileSync(join(lookalike, '0123456789ab-grep-results.txt'), 'x')
    expect(await store.holds(join(lookalike, '0123456789ab-grep-results.txt'), 'session-3')).toBe(false)
    // A directory with a forged marker but no 0700 mode is not one the store made; one without a marker neither.
    chmodSync(lookalike, 0o700)
    rmSync(join(lookalike, '.dsh-spill-owner'))
    expect(await store.holds(join(lookalike, '0123456789ab-grep-results.txt'), 'session-3')).toBe(false)
  })

  it('holds no link planted in an owner directory, and nothing under a root that does not exist', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    const saved = await store.saveText(request())
    const link = join(dirname(saved.locator), '0123456789ab-link.txt')
    symlinkSync(saved.locator, link)
    expect(await store.holds(link, 'session-1')).toBe(false)
    const unmade = freshRoot()
    expect(await createLocalSpillStore({ root: unmade }).holds(join(unmade, 'session-1', '0123456789ab-x.txt'), 'session-1')).toBe(false)
  })

  it('compares real paths: a root reached through a link holds its results under the real path', async () => {
    const real = freshRoot()
    const store = createLocalSpillStore({ root: real })
    const saved = await store.saveText(request())
    const alias = freshRoot()
    symlinkSync(real, alias)
    const viaAlias = createLocalSpillStore({ root: alias })
    expect(await viaAlias.holds(saved.locator, 'session-1')).toBe(true)
  })
})

describe('locate', () => {
  it("finds a result by its owner and name from another store over the same root, as readText's locator", async () => {
    const root = freshRoot()
    const saved = await createLocalSpillStore({ root }).saveText(request({ owner: 'a/b' }))
    const other = createLocalSpillStore({ root })
    const name = saved.locator.split(sep).at(-1)!
    const located = await other.locate('a/b', name)
    expect(located).toBe(saved.locator)
    expect(await other.readText(located!)).toBe('line 1\nline 2\n')
  })

  it('finds nothing for another owner, a name of no result, a path, or a root that does not exist', async () => {
    const root = freshRoot()
    const store = createLocalSpillStore({ root })
    const saved = await store.saveText(request())
    const name = saved.locator.split(sep).at(-1)!
    writeFileSync(join(dirname(saved.locator), 'planted.txt'), 'x')
    for (const [owner, asked] of [
      ['session-2', name],
      ['a_b', name],
      ['session-1', 'planted.txt'],
      ['session-1', '.dsh-spill-owner'],
      ['session-1', `../session-1/${name}`],
      ['session-1', '0123456789ab-missing.txt'],
      ['..', name],
      ['', name],
    ] as const) {
      expect(await store.locate(owner, asked), `${owner} ${asked}`).toBeUndefined()
    }
    const unmade = freshRoot()
    expect(await createLocalSpillStore({ root: unmade }).locate('session-1', name)).toBeUndefined()
  })
})
