// The link plan over a fake executor, file system and policy: every way a scan or a link can go wrong.
import { describe, expect, it } from 'vitest'
import { AccessError, FsError, type AccessPolicy, type BashRunResult, type FileSystem } from '@dsh/core'
import { Config } from '../../src/config.js'
import type { SearchContext } from '../../src/engine/context.js'
import {
  linkDisplay,
  linksListedBelow,
  decodeScan,
  linksNote,
  scanCommand,
  NO_LINKS,
  planLinks,
  withoutSkippedLinks,
  type LinkPlan,
} from '../../src/engine/links.js'
import { LinkScanMemory, type ScannedDir } from '../../src/engine/link-scan-memory.js'
import { FakeBash, isLinkScan, type Scripted } from '../fake-bash.js'

const exec = {
  name: 'grep',
  signal: new AbortController().signal,
  agent: { session: { header: { id: 's', cwd: '/w' } } },
} as never
const noSession = { name: 'grep', signal: new AbortController().signal } as never

/** Links as find prints them, NUL-terminated. */
const found = (...names: string[]) => names.map((name) => `${name}\0`).join('')

/** Links as GNU find reports them (`%Y%p`, `%l`): each a type, a path and the link's text. */
const reported = (...links: [type: string, name: string, text: string][]) =>
  `G\0${links.map(([type, name, text]) => `${type}${name}\0${text}\0`).join('')}`

/** A file system that answers as `fakeFs`, and counts the calls it answers. */
function countingFs(links: Record<string, string | Error>, files: readonly string[] = []): FileSystem & { calls: string[] } {
  const inner = fakeFs(links, files)
  const calls: string[] = []
  return {
    calls,
    realpath: (path) => (calls.push(`realpath ${path}`), inner.realpath(path)),
    stat: (path) => (calls.push(`stat ${path}`), inner.stat(path)),
    readLines: inner.readLines,
  }
}

/** A context whose executor answers each scan, in order, from `scans`. */
function context(scans: (Scripted | ((command: string) => Scripted))[]): { ctx: SearchContext; bash: FakeBash } {
  let at = 0
  const bash = new FakeBash((command) => {
    if (!isLinkScan(command)) return {}
    const next = scans[at++] ?? {}
    return typeof next === 'function' ? next(command) : next
  })
  bash.scriptsLinkScans = true
  return { ctx: { bash, rg: '/opt/rg', config: Config.parse({}), spillStore: () => undefined, access: () => undefined }, bash }
}

/** A file system of directories and links: `links` maps a path to its real path, to an error, or to 'missing' or 'loop'. */
function fakeFs(links: Record<string, string | Error>, files: readonly string[] = []): FileSystem {
  return {
    realpath: async (path) => {
      const target = links[path]
      if (target === undefined) return path
      if (target instanceof Error) throw target
      if (target === 'missing') throw new FsError('FS_NOT_FOUND', `${path} not found`)
      if (target === 'loop') throw new FsError('FS_READ_FAILED', `${path}: ELOOP`)
      return target
    },
    stat: async (path) => ({ kind: files.includes(path) ? 'file' : 'directory', sizeBytes: 0, mtimeMs: 0 }),
    readLines: async () => {
      throw new Error('unused')
    },
  }
}

describe('planLinks', () => {
  it('plans nothing, and runs one scan, for a tree without links', async () => {
    const { ctx, bash } = context([{}])
    expect(await planLinks(ctx, exec, '.', fakeFs({}), undefined)).toBe(NO_LINKS)
    expect(bash.specs).toHaveLength(1)
  })

  it('scans nothing below a file, or a root the file system cannot find', async () => {
    const { ctx, bash } = context([])
    expect(await planLinks(ctx, exec, 'a.txt', fakeFs({}, ['/w/a.txt']), undefined)).toBe(NO_LINKS)
    const gone: FileSystem = { ...fakeFs({}), stat: () => Promise.reject(new FsError('FS_NOT_FOUND', 'gone')) }
    expect(await planLinks(ctx, exec, 'gone', gone, undefined)).toBe(NO_LINKS)
    expect(bash.specs).toHaveLength(0)
    const broken: FileSystem = { ...fakeFs({}), stat: () => Promise.reject(new Error('the fs broke')) }
    await expect(planLinks(ctx, exec, '.', broken, undefined)).rejects.toThrow('the fs broke')
  })

  it('follows links inside, names links out, broken and looping, and scans inside each followed directory', async () => {
    const { ctx, bash } = context([
      { stdout: found('./in', './file-link', './out', './gone', './chain', './up') },
      { stdout: found('./in/deeper') },
      {},
    ])
    // Targets outside the searched directory r, inside the session cwd: the first scan did not walk them.
    const fs = fakeFs(
      {
        '/w/r/in': '/w/real',
        '/w/r/file-link': '/w/a.txt',
        '/w/r/out': '/elsewhere',
        '/w/r/gone': 'missing',
        '/w/r/chain': 'loop',
        '/w/r/up': '/',
        '/w/r/in/deeper': '/w/other',
      },
      ['/w/a.txt'],
    )
    const plan = await planLinks(ctx, exec, 'r', fs, undefined)
    expect(plan).toEqual({
      follow: true,
      followed: [
        { path: 'in', directory: true },
        { path: 'file-link', directory: false },
        { path: 'in/deeper', directory: true },
      ],
      excludes: ['/out', '/gone', '/chain', '/up'],
      deny: [],
      skipped: [
        { path: 'out', why: 'outside' },
        { path: 'gone', why: 'broken' },
        { path: 'chain', why: 'loop' },
        { path: 'up', why: 'outside' },
      ],
    })
    expect(bash.searches()).toEqual([])
    expect(bash.specs[1]!.command).toContain('set -- ./in/\n')
    expect(bash.specs[2]!.command).toContain('set -- ./in/deeper/\n')
  })

  it('calls a link a loop when it leads to a directory the walk passes through, through other links too', async () => {
    const { ctx } = context([{ stdout: found('./a') }, { stdout: found('./a/back', './a/self') }])
    const fs = fakeFs({ '/w/r/a': '/w/x', '/w/r/a/back': '/w/r', '/w/r/a/self': '/w/x' })
    const plan = await planLinks(ctx, exec, 'r', fs, undefined)
    expect(plan.skipped).toEqual([
      { path: 'a/back', why: 'loop' },
      { path: 'a/self', why: 'loop' },
    ])
  })

  it('judges each link by the policy: denied ones are left out unnamed, as are links in a denied directory', async () => {
    const { ctx } = context([{ stdout: found('./ok', './denied', './out', './secret/out', './secret/gone', './cfg') }, {}])
    const access: AccessPolicy = {
      check: async ({ path }) => {
        if (path === '/w/denied' || path === '/w/secret') throw new AccessError('ACCESS_DENIED', 'denied')
        if (path.endsWith('/out')) throw new AccessError('ACCESS_OUTSIDE_ROOTS', 'outside')
        return { realPath: path, excludeGlobs: path === '/w/cfg' ? ['*.pem', '/prod/', 'deep/**/key', '**/k'] : [] }
      },
    }
    const fs = fakeFs({ '/w/secret/gone': 'missing' }, ['/w/ok'])
    const plan = await planLinks(ctx, exec, '.', fs, access)
    expect(plan.skipped).toEqual([{ path: 'out', why: 'outside' }])
    expect(plan.excludes).toEqual(['/denied', '/out', '/secret/out', '/secret/gone'])
    expect(plan.deny).toEqual(['*.pem', '/cfg/prod/', '/cfg/deep/**/key', '/cfg/**/k'])
  })

  it("gives each deny glob once, and none that the search root's own exclusions apply at any depth already", async () => {
    const policy = (excludeGlobs: string[]): AccessPolicy => ({ check: async ({ path }) => ({ realPath: path, excludeGlobs }) })
    // 3,000 links into a store, under rules for any depth: repeated for each link they passed the script's cap.
    const names = Array.from({ length: 3_000 }, (_, i) => `./p${i}`)
    const { ctx } = context([{ stdout: found(...names) }, {}])
    const plan = await planLinks(ctx, exec, '.', fakeFs({}), policy(['**/.env', '.env']), undefined, ['**/.env', '.env'])
    expect(plan.unfollowed).toBeUndefined()
    expect(plan.followed).toHaveLength(3_000)
    expect(plan.deny).toEqual(['.env'])
    // A rule for any depth that is not the root's own, and an anchored one, stay anchored under each link.
    const { ctx: two } = context([{ stdout: found('./a', './b') }, {}])
    expect((await planLinks(two, exec, '.', fakeFs({}), policy(['**/k', '/x/']), undefined, ['**/.env'])).deny).toEqual([
      '/a/**/k',
      '/a/x/',
      '/b/**/k',
      '/b/x/',
    ])
  })

  it('passes on an error of the policy or the file system that is not a refusal', async () => {
    const { ctx } = context([{ stdout: found('./a') }, { stdout: found('./b/c') }])
    const broken: AccessPolicy = { check: () => Promise.reject(new Error('policy broke')) }
    await expect(planLinks(ctx, exec, '.', fakeFs({}), broken)).rejects.toThrow('policy broke')
    const parentBroken: AccessPolicy = {
      check: async ({ path }) => {
        if (path === '/w/b/c') throw new AccessError('ACCESS_OUTSIDE_ROOTS', 'outside')
        throw new Error('parent check broke')
      },
    }
    await expect(planLinks(ctx, exec, '.', fakeFs({}), parentBroken)).rejects.toThrow('parent check broke')
    const { ctx: again } = context([{ stdout: found('./a') }])
    await expect(planLinks(again, exec, '.', fakeFs({ '/w/a': new Error('fs broke') }), undefined)).rejects.toThrow('fs broke')
  })

  it.each([
    ['there are links but no file system to resolve them', [{ stdout: found('./a') }], 'no file system provider is loaded to resolve them'],
    ['the executor has no find', [{ exitCode: 120 }], 'the executor has no find to list them'],
    ['find is killed', [{ exitCode: null, signal: 'SIGKILL' }], 'listing them failed (find exited SIGKILL)'],
    ['find fails', [{ exitCode: 2 }], 'listing them failed (find exited 2)'],
    [
      'a name is not UTF-8',
      [{ stdout: Buffer.from([0x2e, 0x2f, 0xff, 0]) }],
      'a link name is not valid UTF-8, which rg globs cannot exclude exactly',
    ],
    ['a scan of a followed directory fails', [{ stdout: found('./a') }, { exitCode: 120 }], 'the executor has no find to list them'],
  ] as const)('follows no link when %s', async (_case, scans, why) => {
    const { ctx } = context([...scans])
    const fs = _case.startsWith('there are links') ? undefined : fakeFs({ '/w/r/a': '/w/b' })
    expect(await planLinks(ctx, exec, 'r', fs, undefined)).toEqual({ ...NO_LINKS, unfollowed: why })
  })

  it('reads a scan that exits 1 (a directory find could not read) and runs without a session in the executor workdir', async () => {
    const { ctx } = context([{ stdout: found('./out'), exitCode: 1 }])
    const plan = await planLinks(ctx, noSession, '.', fakeFs({ '/work/default/out': '/elsewhere' }), undefined)
    expect(plan.skipped).toEqual([{ path: 'out', why: 'outside' }])
  })

  it('follows anything from a session whose cwd is /, which holds every path', async () => {
    const { ctx } = context([{ stdout: found('./a') }, {}])
    const atRoot = { name: 'grep', signal: new AbortController().signal, agent: { session: { header: { id: 's', cwd: '/' } } } } as never
    expect((await planLinks(ctx, atRoot, 'w', fakeFs({ '/w/a': '/elsewhere' }), undefined)).follow).toBe(true)
  })

  it('resolves a root and cwd that the file system cannot, as given', async () => {
    const { ctx } = context([{ stdout: found('./a') }])
    const fs = fakeFs({ '/w': new FsError('FS_PERMISSION', 'no'), '/w/a': '/w/b' })
    expect((await planLinks(ctx, exec, '.', fs, undefined)).follow).toBe(true)
  })

  it('follows no link past the caps: too many links, too deep, too much to exclude, or too much output', async () => {
    const many = Array.from({ length: 50_001 }, (_, i) => `./l${i}`)
    const { ctx: tooMany } = context([{ stdout: found(...many) }])
    expect((await planLinks(tooMany, exec, '.', fakeFs({}), undefined)).unfollowed).toBe('there are more than 50,000 of them')
    // More than a spread passes as arguments (about 120,000), well inside the scan's 16 MiB.
    const myriad = Array.from({ length: 200_000 }, (_, i) => `./l${i}\0`).join('')
    const { ctx: tooManyToSpread, bash: myriadBash } = context([{ stdout: myriad }])
    myriadBash.stdoutChunkBytes = 64 * 1024
    expect((await planLinks(tooManyToSpread, exec, '.', fakeFs({}), undefined)).unfollowed).toBe('there are more than 50,000 of them')

    let depth = 0
    const { ctx: deep } = context(Array.from({ length: 50 }, () => () => ({ stdout: found(`./${'d/'.repeat(++depth)}d`) })))
    // Each link leads beside the searched directory r, so each level is scanned anew.
    const beside: FileSystem = { ...fakeFs({}), realpath: async (path) => path.replace(/^\/w\/r\//, '/w/x/') }
    expect((await planLinks(deep, exec, 'r', beside, undefined)).unfollowed).toBe('they nest more than 40 deep')

    const long = Array.from({ length: 2_000 }, (_, i) => `./${'x'.repeat(60)}${i}`)
    const { ctx: wide } = context([{ stdout: found(...long) }])
    const outside = Object.fromEntries(long.map((name) => [`/w/${name.slice(2)}`, '/elsewhere']))
    expect((await planLinks(wide, exec, '.', fakeFs(outside), undefined)).unfollowed).toBe(
      'too many of them lead where the search may not go',
    )

    const { ctx: loud, bash: loudBash } = context([{ stdout: Buffer.alloc(16 * 1024 * 1024 + 1, 0x61) }])
    // 16 MiB in the fake's 3-byte chunks is five million calls: large chunks, as a real pipe gives.
    loudBash.stdoutChunkBytes = 64 * 1024
    expect((await planLinks(loud, exec, '.', fakeFs({}), undefined)).unfollowed).toBe('there are more than 50,000 of them')
  })

  it('scans many followed directories in batches that keep each script below the command-line cap', async () => {
    const dirs = Array.from({ length: 3_000 }, (_, i) => `./${'p'.repeat(40)}${i}`)
    const { ctx, bash } = context([{ stdout: found(...dirs) }])
    const fs = fakeFs(Object.fromEntries(dirs.map((dir) => [`/w/r/${dir.slice(2)}`, `/w/real/${dir.slice(2)}`])))
    const plan = await planLinks(ctx, exec, 'r', fs, undefined)
    expect(plan.follow).toBe(true)
    expect(bash.specs.length).toBeGreaterThan(2)
    for (const spec of bash.specs) expect(Buffer.byteLength(spec.command)).toBeLessThan(128 * 1024)
  })

  it('takes the links below a target the first scan walked from that scan, and scans a target in a VCS directory', async () => {
    const { ctx, bash } = context([{ stdout: found('./node_modules/pkg', './store/pkg/node_modules/dep', './vcs') }, {}])
    const fs = fakeFs({
      '/w/node_modules/pkg': '/w/store/pkg',
      '/w/store/pkg/node_modules/dep': '/w/store/dep',
      '/w/node_modules/pkg/node_modules/dep': '/w/store/dep',
      '/w/vcs': '/w/.git/modules',
    })
    const plan = await planLinks(ctx, exec, '.', fs, undefined)
    expect(plan).toMatchObject({ follow: true, excludes: [], skipped: [] })
    // One scan of the tree, then one of the VCS directory alone (find prunes those from the walk).
    expect(bash.specs).toHaveLength(2)
    expect(bash.specs[1]!.command).toContain('set -- ./vcs/\n')
    expect(bash.specs[1]!.command).not.toContain('node_modules')
  })
})

describe('linksListedBelow', () => {
  const walked = ['a/b', 'a/c/d', 'ab', 'x/y']
  it.each([
    ['a', ['l/b', 'l/c/d']],
    ['a/c', ['l/d']],
    ['x', ['l/y']],
    ['none', []],
    ['../out', undefined],
    ['..', undefined],
    ['', undefined],
    ['a/.git/m', undefined],
    ['.hg', undefined],
  ] as const)('lists what the walk found below %j as paths through the link, or undefined when it must be scanned', (target, names) => {
    expect(linksListedBelow(walked, 'l', target)).toEqual(names)
  })
})

describe('linksNote and withoutSkippedLinks', () => {
  const plan: LinkPlan = {
    follow: true,
    followed: [],
    excludes: ['/gone', '/up'],
    deny: [],
    skipped: [
      { path: 'gone', why: 'broken' },
      { path: 'up', why: 'loop' },
    ],
  }
  const run = (exitCode: number, stderr: string): BashRunResult => ({
    exitCode,
    signal: null,
    stop: 'exit',
    durationMs: 1,
    stdout: { text: '', truncated: false, totalBytes: 0 },
    stderr: { text: stderr, truncated: false, totalBytes: stderr.length },
  })

  it('names one link in the singular, a root the model gave before it, and says nothing without skips', () => {
    expect(linksNote({ ...plan, skipped: [plan.skipped[0]!] }, linkDisplay('src'))).toBe(
      '(1 symbolic link was not followed: src/gone (its target does not exist).)',
    )
    expect(linksNote(NO_LINKS, linkDisplay('.'))).toBeUndefined()
  })

  it('drops rg errors about the skipped links, and an exit 2 they alone caused', () => {
    const loop = 'rg: File system loop found: ./up points to an ancestor ./'
    const missing = 'rg: ./gone: No such file or directory (os error 2)'
    expect(withoutSkippedLinks(run(2, `${loop}\n${missing}`), plan)).toMatchObject({ exitCode: 1, stderr: { text: '' } })
    const other = 'rg: ./locked: Permission denied (os error 13)'
    expect(withoutSkippedLinks(run(2, `${missing}\n${other}`), plan)).toMatchObject({ exitCode: 2, stderr: { text: other } })
    expect(withoutSkippedLinks(run(0, missing), plan)).toMatchObject({ exitCode: 0 })
    const untouched = run(2, other)
    expect(withoutSkippedLinks(untouched, plan)).toBe(untouched)
    expect(withoutSkippedLinks(untouched, NO_LINKS)).toBe(untouched)
    const quiet = run(0, '')
    expect(withoutSkippedLinks(quiet, plan)).toBe(quiet)
  })
})

describe('planLinks with what GNU find reports of each target', () => {
  it('judges a pnpm tree without a system call a link: targets inside the walk are real paths already', async () => {
    const { ctx } = context([
      {
        stdout: reported(
          ['d', './node_modules/pkg', '../store/pkg@1'],
          ['f', './node_modules/.bin/tool', '../../store/pkg@1/bin.js'],
          ['d', './store/pkg@1/node_modules/dep', '../../dep@2'],
          ['N', './node_modules/gone', '../store/gone'],
          ['L', './loop', 'loop'],
        ),
      },
    ])
    const fs = countingFs({})
    const checked: { path: string; realPath: string | undefined }[] = []
    const access: AccessPolicy = {
      check: async ({ path, realPath }) => {
        checked.push({ path, realPath })
        return { realPath: realPath ?? path, excludeGlobs: [] }
      },
    }
    const plan = await planLinks(ctx, exec, '.', fs, access)
    expect(plan).toEqual({
      follow: true,
      followed: [
        { path: 'node_modules/pkg', directory: true },
        { path: 'node_modules/.bin/tool', directory: false },
        { path: 'store/pkg@1/node_modules/dep', directory: true },
        { path: 'node_modules/pkg/node_modules/dep', directory: true },
      ],
      excludes: ['/node_modules/gone', '/loop'],
      deny: [],
      skipped: [
        { path: 'node_modules/gone', why: 'broken' },
        { path: 'loop', why: 'loop' },
      ],
    })
    // The root's real path only: every target came from find's report, the one below a followed link too.
    expect(fs.calls).toEqual(['stat /w', 'realpath /w'])
    expect(checked).toEqual(
      expect.arrayContaining([
        { path: '/w/node_modules/pkg', realPath: '/w/store/pkg@1' },
        { path: '/w/node_modules/.bin/tool', realPath: '/w/store/pkg@1/bin.js' },
        { path: '/w/store/pkg@1/node_modules/dep', realPath: '/w/store/dep@2' },
        { path: '/w/node_modules/pkg/node_modules/dep', realPath: '/w/store/dep@2' },
      ]),
    )
  })

  it.each([
    ['leads outside the walked tree', ['d', './out', '../elsewhere'], '/elsewhere'],
    ['leads to the root itself', ['d', './self', '.'], '/w/r'],
    ['climbs out of a name with ..', ['d', './a', 'sub/../b'], '/w/r/b'],
    ['passes through a link the walk found', ['d', './a', 'hop/x'], '/w/r/b/x'],
    ['ends at a link the walk found', ['d', './a', 'hop'], '/w/r/b'],
    ['lies in a VCS directory, which the walk does not enter', ['d', './a', '.git/modules'], '/w/r/.git/modules'],
    ['has a text that is not UTF-8', ['d', './a', 'b\udcff'], '/w/r/b'],
    ['has a type find could not tell', ['?', './a', 'b'], '/w/r/b'],
  ] as const)('asks the file system about a target that %s', async (_case, [type, name, text], real) => {
    const stdout =
      text === 'b\udcff'
        ? Buffer.concat([Buffer.from(`G\0${type}${name}\0b`), Buffer.from([0xff, 0]), Buffer.from('l./hop\0b\0')])
        : reported([type, name, text], ['d', './hop', 'b'])
    const { ctx } = context([{ stdout }, {}])
    const fs = countingFs({ [`/w/r/${name.slice(2)}`]: real, '/w/r/hop': '/w/r/b' })
    await planLinks(ctx, exec, 'r', fs, undefined)
    expect(fs.calls).toContain(`realpath /w/r/${name.slice(2)}`)
  })

  it('resolves a target in memory below the file system root too', async () => {
    const { ctx } = context([{ stdout: reported(['d', './a', 'b'], ['d', './c', '/w/d']) }, {}])
    const atRoot = { name: 'grep', signal: new AbortController().signal, agent: { session: { header: { id: 's', cwd: '/' } } } } as never
    const fs = countingFs({})
    expect((await planLinks(ctx, atRoot, '.', fs, undefined)).follow).toBe(true)
    expect(fs.calls).toEqual(['stat /', 'realpath /', 'realpath /'])
  })

  it('asks the file system when the walk was not whole: a directory find could not read, or a root it cannot resolve', async () => {
    const { ctx } = context([{ stdout: reported(['d', './a', 'b']), exitCode: 1 }])
    const fs = countingFs({})
    await planLinks(ctx, exec, '.', fs, undefined)
    expect(fs.calls).toContain('realpath /w/a')
    const { ctx: again } = context([{ stdout: reported(['d', './a', 'b']) }, {}])
    const unresolved = countingFs({ '/w': new FsError('FS_PERMISSION', 'no') })
    await planLinks(again, exec, '.', unresolved, undefined)
    expect(unresolved.calls).toContain('realpath /w/a')
  })

  it('names a missing target or a loop in a denied directory no more than the file system path does', async () => {
    const { ctx } = context([{ stdout: reported(['N', './secret/gone', 'x'], ['L', './secret/loop', 'loop']) }])
    const access: AccessPolicy = {
      check: async ({ path }) => {
        if (path === '/w/secret') throw new AccessError('ACCESS_DENIED', 'denied')
        return { realPath: path, excludeGlobs: [] }
      },
    }
    const plan = await planLinks(ctx, exec, '.', fakeFs({}), access)
    expect(plan).toEqual({ ...NO_LINKS, excludes: ['/secret/gone', '/secret/loop'] })
  })
})

describe('decodeScan', () => {
  it('reads names, or GNU reports of a type, a name and a text; an empty or unpaired record is no link', () => {
    expect(decodeScan(Buffer.from('./a\0\0.//b//c\0'))).toEqual([{ name: 'a' }, { name: 'b/c' }])
    expect(decodeScan(Buffer.from('G\0d./a\0../b\0f./c'))).toEqual([{ name: 'a', target: { type: 'd', text: '../b' } }])
    expect(decodeScan(Buffer.from([0x47, 0, 0x64, 0x2e, 0x2f, 0xff, 0, 0x62, 0]))).toBeUndefined()
  })

  it('reads directory records, with their stamps in nanoseconds, only when asked for them', () => {
    const bytes = Buffer.from('G\0/0 64 2 1.5 2.25 .\0d./a\0/abs\0/1 64 3 -1.5 -2 ./a b\0/2 9 9 1.0000000001 1 ./c//d\0')
    const found = { dirs: [] as ScannedDir[], readable: true }
    expect(decodeScan(bytes, found)).toEqual([{ name: 'a', target: { type: 'd', text: '/abs' } }])
    expect(found).toEqual({
      readable: true,
      dirs: [
        { name: '.', depth: 0, stamp: '64 2 1500000000 2250000000', changedNs: 2_250_000_000n },
        { name: 'a b', depth: 1, stamp: '64 3 -1500000000 -2000000000', changedNs: -1_500_000_000n },
        { name: 'c/d', depth: 2, stamp: '9 9 1000000000 1000000000', changedNs: 1_000_000_000n },
      ],
    })
    expect(decodeScan(bytes)).toEqual([{ name: 'a', target: { type: 'd', text: '/abs' } }])
  })

  it.each([
    ['a field that is no number', Buffer.from('G\0/0 64 x 1 1 .\0')],
    ['a name that is not UTF-8', Buffer.concat([Buffer.from('G\0/0 64 2 1 1 ./'), Buffer.from([0xff, 0])])],
  ])('marks the directories unreadable for %s', (_case, bytes) => {
    const found = { dirs: [] as ScannedDir[], readable: true }
    expect(decodeScan(bytes, found)).toEqual([])
    expect(found).toEqual({ dirs: [], readable: false })
  })
})

describe('planLinks with a remembered scan', () => {
  /** A file system that can stamp many paths: every directory unchanged since long ago. */
  const stamping = (links: Record<string, string>): FileSystem => ({
    ...fakeFs(links),
    stampMany: async (paths, { follow }) =>
      paths.map(() => (follow ? { kind: 'directory' } : { kind: 'directory', dev: '1', ino: '2', mtimeNs: '0', ctimeNs: '0' })),
  })
  const withMemory = (ctx: SearchContext, memory = new LinkScanMemory(0)): SearchContext => ({ ...ctx, linkScans: () => memory })

  it('asks find for directories, remembers the walk, and answers the next call without a scan, in the executor workdir too', async () => {
    const { ctx, bash } = context([{ stdout: 'G\0/0 1 2 0 0 .\0d./a\0b\0' }])
    const remembering = withMemory(ctx)
    const fs = stamping({ '/work/default/a': '/work/default/b' })
    const first = await planLinks(remembering, noSession, '.', fs, undefined)
    const second = await planLinks(remembering, noSession, '.', fs, undefined)
    expect(second).toEqual(first)
    expect(first.followed).toEqual([{ path: 'a', directory: true }])
    expect(bash.specs).toHaveLength(1)
    expect(bash.specs[0]!.command).toContain("-type d -printf '/%d %D %i %T@ %C@ %p\\0'")
    // Directory records are no rg output: rawOutputMaxBytes does not cut them.
    expect(bash.requests[0]!.stdoutMaxBytes).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('walks every call without a memory, or with a file system that cannot stamp many paths', async () => {
    const { ctx, bash } = context([{}, {}, {}, {}])
    for (const [search, fs] of [
      [ctx, stamping({})],
      [withMemory(ctx), fakeFs({})],
    ] as const) {
      await planLinks(search, exec, '.', fs, undefined)
      await planLinks(search, exec, '.', fs, undefined)
    }
    expect(bash.specs).toHaveLength(4)
    for (const spec of bash.specs.slice(0, 2)) expect(spec.command).not.toContain('-type d')
  })

  it('lists the links alone when the directories overflow the scan, as a walk without them would', async () => {
    const { ctx, bash } = context([{ stdout: Buffer.alloc(16 * 1024 * 1024 + 1, 0x61) }, { stdout: found('./a') }])
    bash.stdoutChunkBytes = 64 * 1024
    const plan = await planLinks(withMemory(ctx), exec, '.', stamping({ '/w/a': '/w/b' }), undefined)
    expect(plan.followed).toEqual([{ path: 'a', directory: true }])
    expect(bash.specs[1]!.command).not.toContain('-type d')
  })
})

describe('scanCommand', () => {
  it('reads each start and its entries alone when asked for one level, and never enters a start that is a link then', () => {
    expect(scanCommand('.', ['a', '.'], { dirs: true, depth: 'one' })).toContain('set -- ./a .\n')
    expect(scanCommand('.', ['a', '.'], { dirs: true, depth: 'one' })).toContain('"$@" -maxdepth 1 ')
    expect(scanCommand('.', ['a'])).toContain('set -- ./a/\n')
  })
})
