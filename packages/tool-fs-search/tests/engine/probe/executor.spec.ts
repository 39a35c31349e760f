import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { createLocalBash } from '@dsh/bash-local'
import type { BashExecutor, Logger } from '@dsh/core'
import { buildJointProbeCommand, probeExecutor } from '../../../src/engine/probe/executor.js'
import { buildMtimeProbeCommand } from '../../../src/engine/probe/mtime-helper.js'
import { buildProbeCommand, packagedRgPath } from '../../../src/engine/probe/ripgrep.js'
import { FakeBash, isJointProbe, isMtimeProbe, isProbe, RG_VERSION, type Scripted } from '../../fake-bash.js'
import { localFindHelper, programOnPath, scratchDirs } from '../../real-harness.js'

const logger = () => ({ warn: vi.fn<(message: string) => void>(), info: vi.fn<(message: string) => void>() }) satisfies Logger

/** An executor that records the commands it runs, around a real one. */
function recording(bash: BashExecutor): { bash: BashExecutor; commands: string[] } {
  const commands: string[] = []
  return {
    commands,
    bash: { resolve: (request) => bash.resolve(request), run: (spec) => (commands.push(spec.command), bash.run(spec)) },
  }
}

const FOUND = { rg: { available: true, chosen: '/opt/rg' }, lister: { available: true, chosen: { helper: 'find', find: '/usr/bin/find' } } }

describe('the joint probe through the real executor', () => {
  const scratchDir = scratchDirs()
  let rg: string
  beforeAll(async () => {
    rg = (await packagedRgPath())!
  })

  it.each(['/bin/bash', '/bin/sh'])('answers for rg and the mtime helper in one run of %s', async (shellPath) => {
    const { bash, commands } = recording(createLocalBash({ shellPath }))
    const log = logger()
    expect(await probeExecutor(bash, [rg, 'rg'], log)).toEqual({
      rg: { available: true, chosen: rg },
      lister: {
        available: true,
        chosen: { ...localFindHelper(), dd: programOnPath('dd') },
      },
    })
    expect(commands).toEqual([buildJointProbeCommand(rg)])
    expect(log.warn).not.toHaveBeenCalled()
  })

  it('runs no program of the searched tree, whatever PATH says', async () => {
    const tree = scratchDir('joint-path')
    const canary = join(tree, 'CANARY')
    for (const helper of ['find', 'perl', 'xargs', 'stat', 'sh', 'rg'])
      writeFileSync(join(tree, helper), `#!/bin/sh\ntouch '${canary}'\n`, { mode: 0o755 })
    const { bash, commands } = recording(createLocalBash({ cwd: tree, envSet: { PATH: '.::/usr/bin:/bin' } }))
    expect(await probeExecutor(bash, [rg, 'rg'], logger())).toMatchObject({ rg: { chosen: rg }, lister: { chosen: localFindHelper() } })
    expect(commands).toHaveLength(1)
    expect(existsSync(canary)).toBe(false)
  })

  it('falls back to a probe per candidate when the first is not ripgrep, and says which it chose', async () => {
    const { bash, commands } = recording(createLocalBash())
    const log = logger()
    expect(await probeExecutor(bash, ['/bin/true', rg], log)).toMatchObject({ rg: { chosen: rg }, lister: { chosen: localFindHelper() } })
    // The candidates' probes run in order, beside the helper's.
    expect(commands[0]).toBe(buildJointProbeCommand('/bin/true'))
    expect(commands.slice(1).sort()).toEqual([buildProbeCommand('/bin/true'), buildProbeCommand(rg), buildMtimeProbeCommand()].sort())
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(/^tool-fs-search: using \S+\/rg; not runnable in the executor: \/bin\/true \(not ripgrep/),
    )
  })
})

describe('the joint probe, answered by a fake executor', () => {
  it('takes a tagged, complete answer in which both are usable, and runs nothing else', async () => {
    const bash = new FakeBash()
    expect(await probeExecutor(bash, ['/opt/rg', 'rg'], logger())).toEqual(FOUND)
    expect(bash.specs.map((s) => s.command)).toEqual([buildJointProbeCommand('/opt/rg')])
  })

  it('takes dd after the helper, when the executor has one that gathers full blocks', async () => {
    const bash = new FakeBash((command) =>
      isJointProbe(command) ? { stdout: `dsh-probe-1\0stat\0/bin/xargs\0/bin/stat\0dd\0/bin/dd\x000\0/opt/rg\0${RG_VERSION}` } : {},
    )
    expect(await probeExecutor(bash, ['/opt/rg'], logger())).toEqual({
      rg: FOUND.rg,
      lister: { available: true, chosen: { helper: 'stat', xargs: '/bin/xargs', stat: '/bin/stat', dd: '/bin/dd' } },
    })
    expect(bash.specs).toHaveLength(1)
  })

  it('keeps a version that holds a NUL (a shell that keeps them) whole, since rg answers last', async () => {
    const bash = new FakeBash((command) =>
      isJointProbe(command) ? { stdout: `dsh-probe-1\0find\0/usr/bin/find\x000\0/opt/rg\0${RG_VERSION}\0more` } : {},
    )
    expect(await probeExecutor(bash, ['/opt/rg'], logger())).toEqual(FOUND)
    expect(bash.specs).toHaveLength(1)
  })

  it.each([
    ['the answer was cut', { stdoutTruncated: true }],
    ['the candidate was not found (status 1)', { exitCode: 1 }],
    ['the answer has no tag', { stdout: `find\0/usr/bin/find\x000\0/opt/rg\0${RG_VERSION}` }],
    ['the helper kind is unknown', { stdout: `dsh-probe-1\0ls\0/bin/ls\x000\0/opt/rg\0${RG_VERSION}` }],
    ['the helper kind is an Object member', { stdout: `dsh-probe-1\0toString\0/bin/ls\x000\0/opt/rg\0${RG_VERSION}` }],
    ['the helper status is not a status', { stdout: `dsh-probe-1\0find\0/usr/bin/find\0x\0/opt/rg\0${RG_VERSION}` }],
    ['the answer ends early', { stdout: 'dsh-probe-1\0find\0/usr/bin/find' }],
    ['dd has a relative path', { stdout: `dsh-probe-1\0find\0/usr/bin/find\0dd\0dd\x000\0/opt/rg\0${RG_VERSION}` }],
    ['no helper works', { stdout: `dsh-probe-1\0none\0\0\0\0\x001\0/opt/rg\0${RG_VERSION}` }],
    ['the helper path is relative', { stdout: `dsh-probe-1\0find\0find\x000\0/opt/rg\0${RG_VERSION}` }],
    ['the candidate is not ripgrep', { stdout: 'dsh-probe-1\0find\0/usr/bin/find\x000\0/bin/true\0true (GNU coreutils) 9.1\n' }],
    ['the candidate printed no path', { stdout: 'dsh-probe-1\0find\0/usr/bin/find\x000\0' }],
    ['the probe timed out', { stop: 'timeout', exitCode: null }],
  ] satisfies [string, Scripted][])('falls back to the separate probes when %s', async (_case, joint) => {
    const bash = new FakeBash((command) => (isJointProbe(command) ? joint : {}))
    expect(await probeExecutor(bash, ['/opt/rg'], logger())).toEqual(FOUND)
    expect(bash.specs.map((s) => s.command).filter((c) => isProbe(c) && !isJointProbe(c))).toHaveLength(2)
  })

  it('falls back when the joint probe cannot run at all, and reports the executor through the separate probes', async () => {
    let runs = 0
    const bash = new FakeBash()
    const run = bash.run.bind(bash)
    bash.run = (spec) => (runs++ === 0 ? Promise.reject(new Error('socket closed')) : run(spec))
    expect(await probeExecutor(bash, ['/opt/rg'], logger())).toEqual(FOUND)
    bash.runError = new Error('socket closed')
    await expect(probeExecutor(bash, ['/opt/rg'], logger())).rejects.toThrow(
      'the ripgrep probe could not run in the bash executor: socket closed',
    )
  })

  it('reports the mtime helper probe when only it cannot run', async () => {
    const bash = new FakeBash()
    const run = bash.run.bind(bash)
    bash.run = (spec) => (isMtimeProbe(spec.command) ? Promise.reject(new Error('gone')) : run(spec))
    await expect(probeExecutor(bash, ['/opt/rg'], logger())).rejects.toThrow(
      'the mtime helper probe could not run in the bash executor: gone',
    )
  })
})
