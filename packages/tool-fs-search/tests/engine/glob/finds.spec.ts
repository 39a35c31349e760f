import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildGlobCommand } from '../../../src/engine/glob/command.js'
import { FINDS_PROGRAM, findsCommand, MAX_FINDS } from '../../../src/engine/glob/finds.js'
import { buildMtimeProbeCommand, judgeMtimeAnswer } from '../../../src/engine/probe/mtime-helper.js'
import { callTool, loadRealHarness, scratchDirs, waitForNoProcess, writeMtimeTree } from '../../real-harness.js'

const FIND = '/usr/bin/find'
const PERL = '/usr/bin/perl'

/** Runs the helper's command as the glob script does, in sh, over `names` (NUL-separated bytes) from `cwd`. */
function runFinds(
  names: Buffer | string,
  { cwd, count = 2, find = FIND, env }: { cwd: string; count?: number; find?: string; env?: NodeJS.ProcessEnv },
) {
  const run = spawnSync('/bin/sh', ['-c', findsCommand({ find, perl: PERL, count })], { cwd, env, input: names, maxBuffer: 1 << 30 })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr.toString('utf8') }
}

/** What one find prints for `names`: the records the finds must print between them. */
function oneFind(names: Buffer | string, cwd: string) {
  return spawnSync(FIND, ['-files0-from', '-', '-maxdepth', '0', '-printf', '%T@\\t%p\\0'], { cwd, input: names, maxBuffer: 1 << 30 })
}

/** The NUL-terminated records of `bytes`, as binary strings, sorted: the finds' order is theirs. */
const records = (bytes: Buffer): string[] => {
  const text = bytes.toString('latin1')
  expect(text === '' || text.endsWith('\0')).toBe(true)
  return text.split('\0').slice(0, -1).sort()
}

describe('several finds at once (the finds helper)', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('finds')
  // Names that cross many of the program's 64 KiB blocks, and names a line-based split would break.
  const odd = [
    'new\nline.txt',
    'tab\there.txt',
    '-leading-dash.txt',
    "quote'and$(x).txt",
    Buffer.from([0x6c, 0xe9, 0x2e, 0x74]).toString('latin1'),
  ]
  const many = Array.from({ length: 8_000 }, (_, i) => `dir-${i % 7}/file-with-a-longish-name-${i}.ts`)
  let names: Buffer
  beforeAll(() => {
    for (let d = 0; d < 7; d++) mkdirSync(join(tree, `dir-${d}`))
    for (const name of many) writeFileSync(join(tree, name), '')
    for (const name of odd) writeFileSync(Buffer.from(join(tree, name), 'latin1'), '')
    names = Buffer.from([...many, ...odd].map((name) => `${name}\0`).join(''), 'latin1')
  })

  it.each([2, 3, MAX_FINDS])('prints with %i finds exactly the records one find prints, whole', (count) => {
    expect(names.length).toBeGreaterThan(4 * 65_536)
    const run = runFinds(names, { cwd: tree, count })
    expect(run).toMatchObject({ status: 0, stderr: '' })
    expect(records(run.stdout)).toEqual(records(oneFind(names, tree).stdout))
  })

  it('takes a last name without its NUL, and no names at all', () => {
    expect(records(runFinds('dir-0/file-with-a-longish-name-0.ts', { cwd: tree }).stdout)).toEqual([
      expect.stringMatching(/^\d+\.\d+\tdir-0\/file-with-a-longish-name-0\.ts$/),
    ])
    expect(runFinds('', { cwd: tree })).toMatchObject({ status: 0, stderr: '' })
  })

  it('reports each name no find could stat on a line of its own, lists the rest, and exits as find does', () => {
    const gone = Array.from({ length: 40 }, (_, i) => `gone-${i}.ts`)
    const mixed = Buffer.from([...many.slice(0, 3_000), ...gone].map((name) => `${name}\0`).join(''))
    // A locale the machine lacks: perl says nothing of it, so stderr holds only the names.
    const run = runFinds(mixed, { cwd: tree, env: { ...process.env, LC_ALL: 'xx_YY.UTF-8' } })
    expect(run.status).toBe(1)
    expect(records(run.stdout)).toHaveLength(3_000)
    // find quotes the name as the locale says: 'x' in C, ‘x’ in UTF-8 ones.
    const named = run.stderr.split('\n').map((line) => /^\/usr\/bin\/find: .(gone-\d+\.ts).: No such file or directory$/.exec(line)?.[1])
    expect(named.slice(0, -1).sort()).toEqual(gone.sort())
  })

  it("passes on the finds' stderr a whole line at a time, however they write it", () => {
    const find = join(scratchDir('slow-find'), 'find')
    // Each line in two writes with a pause between: two finds at once would cut into each other's lines.
    writeFileSync(
      find,
      `#!/bin/sh\ncat >/dev/null\nfor i in 1 2 3 4 5; do printf 'find: line %s' $i >&2; sleep 0.01; printf ' of %s\\n' $$ >&2; done\n`,
      {
        mode: 0o755,
      },
    )
    const run = runFinds(names, { cwd: tree, find })
    const lines = run.stderr.split('\n').slice(0, -1)
    expect(lines).toHaveLength(10)
    for (const line of lines) expect(line).toMatch(/^find: line \d of \d+$/)
  })

  it.each([
    ['a find that cannot run', '/nonexistent/find', 127],
    ['a find killed by a signal', 'killed', 128 + 9],
    ['a find that exits at once, its names unread', 'early', 3],
  ])('exits with the worst status of its finds: %s', (_case, which, status) => {
    const find = which.startsWith('/') ? which : join(scratchDir(which), 'find')
    if (which === 'killed') writeFileSync(find, '#!/bin/sh\nkill -9 $$\n', { mode: 0o755 })
    if (which === 'early') writeFileSync(find, '#!/bin/sh\nexit 3\n', { mode: 0o755 })
    expect(runFinds(names, { cwd: tree, find }).status).toBe(status)
  })

  it('stops when its output is closed, and leaves no find running', async () => {
    // The finds run by a name of their own, which the process table shows.
    const find = join(scratchDir('closed'), 'find')
    symlinkSync(FIND, find)
    const child = spawn(PERL, ['-e', FINDS_PROGRAM, '--', find, '2'], { cwd: tree, stdio: ['pipe', 'pipe', 'inherit'] })
    // Once perl has gone, the rest of its input has nowhere to go.
    child.stdin.on('error', () => undefined)
    child.stdin.end(Buffer.concat(Array.from({ length: 20 }, () => names)))
    await new Promise((resolve) => child.stdout.once('data', resolve))
    child.stdout.destroy()
    const status = await new Promise((resolve) => child.once('exit', (code) => resolve(code)))
    expect(status).toBe(141)
    // Each find ends at its next write, into the pipe perl no longer reads.
    expect(await waitForNoProcess(find, 1000)).toEqual([])
  })
})

describe('the finds probe and script', () => {
  it('answers finds for as many cores as this process may use, up to the most it runs, else find alone', () => {
    const answer = execFileSync('/bin/sh', ['-c', buildMtimeProbeCommand()], { encoding: 'utf8' })
    const cores = availableParallelism()
    expect(answer).toMatch(
      cores >= 2 ? new RegExp(`^finds\\x00${FIND}\\x00${PERL}\\x00${Math.min(cores, MAX_FINDS)}\\x00dd\\x00`) : /^find\0/,
    )
    // One core: one find, with no perl in between.
    expect(execFileSync('taskset', ['-c', '0', '/bin/sh', '-c', buildMtimeProbeCommand()], { encoding: 'utf8' })).toMatch(
      new RegExp(`^find\\x00${FIND}\\x00dd\\x00`),
    )
  })

  it.each([
    ['counts one find', '1'],
    ['counts more finds than it runs', String(MAX_FINDS + 1)],
    ['counts nothing', ''],
    ['counts in words', 'two'],
  ])('refuses a finds answer that %s', (_case, count) => {
    expect(judgeMtimeAnswer(`finds\0${FIND}\0${PERL}\0${count}`, 0)).toMatchObject({ available: false })
  })

  it('refuses a finds answer with a relative perl, and takes one by absolute paths', () => {
    expect(judgeMtimeAnswer(`finds\0${FIND}\0perl\x002`, 0)).toMatchObject({ available: false })
    expect(judgeMtimeAnswer(`finds\0${FIND}\0${PERL}\x002\0dd\0/bin/dd`, 0)).toEqual({
      available: true,
      chosen: { helper: 'finds', find: FIND, perl: PERL, count: 2, dd: '/bin/dd' },
    })
  })

  it('runs perl and find by absolute path, the program one quoted word', () => {
    const lister = { helper: 'finds', find: FIND, perl: PERL, count: 3 } as const
    const script = buildGlobCommand({ rg: '/opt/rg', lister, root: '.', glob: '*' })
    expect(script).toContain(`| { ${findsCommand(lister)}; echo "h$?" >&3; } >&4; } 3>&1 )`)
    expect(findsCommand(lister)).toMatch(/^PERL_BADLANG=0 \/usr\/bin\/perl -e 'use strict;\n[^]*' -- \/usr\/bin\/find 3$/)
  })
})

describe('the finds helper through the tool', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('order')
  const spillRoot = scratchDir('spill')
  beforeAll(() => writeMtimeTree(tree))

  it('lists newest first, and names a file rg listed that no find could stat', async () => {
    const rg = join(scratchDir('lying-rg'), 'rg')
    // An rg that lists a file that is not there among the real ones.
    writeFileSync(
      rg,
      `#!/bin/sh\ncase $1 in --version) echo 'ripgrep 15.0.0' ;; *) printf 'c-old.txt\\0gone.txt\\0b-new.txt\\0a-mid.txt\\0' ;; esac\n`,
      { mode: 0o755 },
    )
    const harness = await loadRealHarness({ spillRoot, search: { rgPath: rg } })
    expect((await callTool(harness, 'glob', { pattern: '*.txt' }, tree)).content).toMatch(
      /^b-new\.txt\na-mid\.txt\nc-old\.txt\n\n\(Listing incomplete: 1 file rg listed could not be examined for its modification time, so it is not shown: .gone\.txt.: No such file or directory\.\)$/,
    )
  })
})
