import { execFileSync } from 'node:child_process'
import { existsSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { loadHarness, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { buildMtimeProbeCommand } from '../../../src/engine/probe/mtime-helper.js'
import { FakeBash, isJointProbe, isMtimeProbe, isProbe } from '../../fake-bash.js'
import { callTool, loadRealHarness, localFindAnswer, localFindHelper, scratchDirs, writeMtimeTree } from '../../real-harness.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

describe("glob's mtime helper probe", () => {
  it("resolves glob's mtime helpers once, and falls back to xargs and stat by absolute path", async () => {
    const stderr = "/bin/stat: cannot statx 'shut/a.ts': Permission denied\n/bin/stat: cannot statx 'gone.ts': No such file or directory\n"
    const bash = new FakeBash((command) =>
      isMtimeProbe(command)
        ? { stdout: 'stat\0/bin/xargs\0/bin/stat' }
        : isProbe(command)
          ? {}
          : { exitCode: 7, stdout: '1\tok.ts\0', stderr },
    )
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    const result = await harness.registry.execute('glob', { pattern: '*' })
    // The joint probe's answer is not a tagged one, so the helper's own probe ran: once, at load.
    expect(bash.requests.filter((r) => isMtimeProbe(r.command) && !isJointProbe(r.command))).toHaveLength(1)
    expect(bash.searches().at(-1)).toContain('| { /bin/xargs -0 -r /bin/stat \'--printf=%.9Y\\t%n\\0\' --; echo "h$?" >&3; }')
    expect(result.content).toBe(
      "ok.ts\n\n(Listing incomplete: 2 files rg listed could not be examined for their modification time, so they are not shown: cannot statx 'gone.ts': No such file or directory; cannot statx 'shut/a.ts': Permission denied.)",
    )
  })

  it('runs a stat that prints whole seconds under sh, in the batches xargs makes, and names what it could not stat without its program name', async () => {
    const bash = new FakeBash((command) =>
      isMtimeProbe(command)
        ? { stdout: 'stat-lines\0/bb/xargs\0/bb/stat\0/bin/sh\0-c' }
        : isProbe(command)
          ? {}
          : { exitCode: 7, stdout: '2\tnew.ts\x001\told.ts\0', stderr: "stat: can't stat 'gone.ts': No such file or directory\n" },
    )
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } })
    const result = await harness.registry.execute('glob', { pattern: '*' })
    expect(bash.searches().at(-1)).toContain(
      "| { /bb/xargs -0 /bin/sh -c '[ $# -gt 0 ] || exit 0\nif t=$(/bb/stat -c '\\''%Y'\\'' -- \"$@\" 2>/dev/null)",
    )
    expect(result.content).toBe(
      "new.ts\nold.ts\n\n(Listing incomplete: 1 file rg listed could not be examined for its modification time, so it is not shown: can't stat 'gone.ts': No such file or directory.)",
    )
  })

  it.each([
    [
      'no helper is runnable',
      { exitCode: 1, stdout: 'none\0/bin/busybox\0\0/usr/bin/stat\0/bin/sh' },
      'tried find (/bin/busybox), xargs (not found), stat (/usr/bin/stat), sh (/bin/sh). Install GNU findutils (>= 4.9) or coreutils.',
    ],
    ['the helper probe prints nonsense', { stdout: 'find\0' }, 'the probe printed "find\\u0000".'],
    [
      'the helper probe prints a relative path',
      { stdout: 'stat\0xargs\0/bin/stat' },
      'the probe printed "stat\\u0000xargs\\u0000/bin/stat".',
    ],
    ['the helper probe prints an unknown kind', { stdout: 'ls\0/bin/ls' }, 'the probe printed "ls\\u0000/bin/ls".'],
    [
      'the helper probe prints a relative dd',
      { stdout: 'find\0/usr/bin/find\0dd\0dd' },
      'the probe printed "find\\u0000/usr/bin/find\\u0000dd\\u0000dd".',
    ],
    [
      'the helper probe names an unknown stat option',
      { stdout: 'stat-lines\0/bin/xargs\0/bin/stat\0/bin/sh\0-x' },
      'the probe printed "stat-lines\\u0000/bin/xargs\\u0000/bin/stat\\u0000/bin/sh\\u0000-x".',
    ],
    [
      'the helper probe output was cut',
      { stdout: 'find\0/usr/bin/fi', stdoutTruncated: true },
      "the probe's answer was cut by the executor.",
    ],
  ])('registers grep but withholds glob, with the reason and a warning, when %s', async (_case, scripted, why) => {
    const bash = new FakeBash((command) => (isMtimeProbe(command) ? scripted : {}))
    const log = logger()
    const harness = await loadHarness({
      plugins: [toolFsSearch],
      services: { bash },
      logger: log,
      config: { 'tool-fs-search': { rgPath: '/opt/rg' } },
    })
    expect(harness.registry.list().map((t) => t.name)).toEqual(['grep'])
    expect(harness.systemPrompt().map((s) => s.tool)).toEqual(['grep'])
    const reason = `glob lists files newest first, and reads modification times in the bash executor with GNU find (>= 4.9), or xargs -0 and sh with a stat that prints them (GNU, BusyBox or BSD stat); ${why}`
    expect(harness.get('toolAvailability')?.withheld()).toEqual([{ name: 'glob', reason }])
    expect(log.warn).toHaveBeenCalledWith(`tool-fs-search: glob is not registered: ${reason}`)
  })

  it('fails the load loudly when the helper probe cannot run', async () => {
    const bash = new FakeBash((command) => (isMtimeProbe(command) ? { stop: 'timeout', exitCode: null } : {}))
    await expect(
      loadHarness({ plugins: [toolFsSearch], services: { bash }, config: { 'tool-fs-search': { rgPath: '/opt/rg' } } }),
    ).rejects.toThrow(/the mtime helper probe did not finish with an exit code: the bash executor is broken/)
  })
})

describe('the mtime helper through the real executor', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('order')
  beforeAll(() => writeMtimeTree(tree))
  const newestFirst = ['b-new.txt', 'tie-a.txt', 'tie-b.txt', 'a-mid.txt', 'c-old.txt'].join('\n')

  /** A directory whose find, stat, xargs, env and dd are BusyBox's, as on Alpine or in a minimal image. */
  function busyboxBin(): string {
    expect(existsSync('/bin/busybox'), 'install busybox (apt-get install busybox), as .ci/run does').toBe(true)
    const bin = scratchDir('busybox')
    for (const tool of ['find', 'stat', 'xargs', 'env', 'dd']) symlinkSync('/bin/busybox', join(bin, tool))
    return bin
  }

  it('with BusyBox find, stat and xargs first on PATH, glob orders newest first by whole seconds through BusyBox stat', async () => {
    const bin = busyboxBin()
    const PATH = `${bin}:/usr/bin:/bin`
    const probe = execFileSync('/bin/sh', ['-c', buildMtimeProbeCommand()], { env: { PATH }, encoding: 'utf8' })
    expect(probe).toBe(`stat-lines\0${bin}/xargs\0${bin}/stat\0/usr/bin/sh\0-c\0dd\0${bin}/dd`)
    const busybox = await loadRealHarness({ spillRoot, bash: { envSet: { PATH } } })
    expect(await callTool(busybox, 'glob', { pattern: '*.txt' }, tree)).toMatchObject({ isError: false, content: newestFirst })
  })

  it('with BusyBox first on PATH, a file rg listed that stat cannot read is named, and the rest still listed', async () => {
    const PATH = `${busyboxBin()}:/usr/bin:/bin`
    const rg = join(scratchDir('lying-rg'), 'rg')
    // An rg that lists a file that is not there: the stat of its batch fails, and each name is tried alone.
    writeFileSync(
      rg,
      `#!/bin/sh\ncase $1 in --version) echo 'ripgrep 15.0.0' ;; *) printf 'c-old.txt\\0gone.txt\\0b-new.txt\\0' ;; esac\n`,
      {
        mode: 0o755,
      },
    )
    const busybox = await loadRealHarness({ spillRoot, bash: { envSet: { PATH } }, search: { rgPath: rg } })
    expect((await callTool(busybox, 'glob', { pattern: '*.txt' }, tree)).content).toBe(
      "b-new.txt\nc-old.txt\n\n(Listing incomplete: 1 file rg listed could not be examined for its modification time, so it is not shown: can't stat 'gone.txt': No such file or directory.)",
    )
  })

  it('with a BSD-style stat (-f %m, no --printf or -c) first on PATH, glob orders newest first', async () => {
    const bin = scratchDir('bsd')
    writeFileSync(join(bin, 'find'), '#!/bin/sh\necho "find: -files0-from: unknown primary or operator" >&2\nexit 1\n', { mode: 0o755 })
    writeFileSync(
      join(bin, 'stat'),
      '#!/bin/sh\n[ "$1" = -f ] && [ "$2" = %m ] && [ "$3" = -- ] || { echo "stat: illegal option" >&2; exit 1; }\nshift 3\nexec /usr/bin/stat -c %Y -- "$@"\n',
      { mode: 0o755 },
    )
    const PATH = `${bin}:/usr/bin:/bin`
    expect(execFileSync('/bin/sh', ['-c', buildMtimeProbeCommand()], { env: { PATH }, encoding: 'utf8' })).toMatch(
      /^stat-lines\0.*\0-f\0dd\0\/usr\/bin\/dd$/,
    )
    const bsd = await loadRealHarness({ spillRoot, bash: { envSet: { PATH } } })
    expect((await callTool(bsd, 'glob', { pattern: '*.txt' }, tree)).content).toBe(newestFirst)
  })

  it('with no usable helper on PATH, glob is withheld, naming what the probe found', async () => {
    const bin = busyboxBin()
    // BusyBox's stat without -c: no helper prints a modification time.
    writeFileSync(join(bin, 'nostat'), '#!/bin/sh\nexit 1\n', { mode: 0o755 })
    execFileSync('ln', ['-sf', join(bin, 'nostat'), join(bin, 'stat')])
    const warnings: string[] = []
    const none = await loadRealHarness({
      spillRoot,
      bash: { envSet: { PATH: `${bin}:/usr/bin:/bin` } },
      logger: { warn: (m) => warnings.push(m), info: () => undefined },
    })
    expect(none.registry.list().map((t) => t.name)).toEqual(['grep'])
    expect(none.get('toolAvailability')?.withheld()[0]?.reason).toMatch(
      new RegExp(
        `; tried find \\(${bin}/find\\), xargs \\(${bin}/xargs\\), stat \\(${bin}/stat\\), sh \\(/usr/bin/sh\\)\\. Install GNU findutils`,
      ),
    )
    expect(warnings).toEqual([expect.stringMatching(/^tool-fs-search: glob is not registered: glob lists files newest first/)])
  })

  it('with a dd that does not take iflag=fullblock, glob runs its helper without dd, and orders the same', async () => {
    const bin = scratchDir('old-dd')
    writeFileSync(join(bin, 'dd'), '#!/bin/sh\necho "dd: unknown operand iflag=fullblock" >&2\nexit 1\n', { mode: 0o755 })
    const PATH = `${bin}:/usr/bin:/bin`
    expect(execFileSync('/bin/sh', ['-c', buildMtimeProbeCommand()], { env: { PATH }, encoding: 'utf8' })).toBe(localFindAnswer())
    const noDd = await loadRealHarness({ spillRoot, bash: { envSet: { PATH } } })
    expect((await callTool(noDd, 'glob', { pattern: '*.txt' }, tree)).content).toBe(newestFirst)
  })

  it('when dd fails during a search, glob fails naming it instead of listing what dd may have cut', async () => {
    const bin = scratchDir('failing-dd')
    // Passes the probe's check (which copies /dev/null), then fails on a real listing.
    writeFileSync(
      join(bin, 'dd'),
      '#!/bin/sh\ncase "$*" in *if=/dev/null*) exit 0 ;; esac\ncat >/dev/null\necho "dd: write error" >&2\nexit 1\n',
      {
        mode: 0o755,
      },
    )
    const failing = await loadRealHarness({ spillRoot, bash: { envSet: { PATH: `${bin}:/usr/bin:/bin` } } })
    const result = await callTool(failing, 'glob', { pattern: '*.txt' }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    const helper = localFindHelper()
    const programs = helper.helper === 'finds' ? [helper.perl, helper.find] : [helper.find]
    expect(result.content).toContain(`glob could not run its modification-time helper (${[...programs, `${bin}/dd`].join(', ')})`)
  })

  it('glob orders by mtime the same way through the xargs/stat fallback, where find is older than 4.9', async () => {
    const bin = scratchDir('old-find')
    writeFileSync(join(bin, 'find'), '#!/bin/sh\necho "find: unknown predicate -files0-from" >&2\nexit 1\n', { mode: 0o755 })
    const fallback = await loadRealHarness({ spillRoot, bash: { envSet: { PATH: `${bin}:/usr/bin:/bin` } } })
    const result = await callTool(fallback, 'glob', { pattern: '*.txt' }, tree)
    expect(result.content).toBe(['b-new.txt', 'tie-a.txt', 'tie-b.txt', 'a-mid.txt', 'c-old.txt'].join('\n'))
  })
})
